#!/bin/sh
git log --oneline "$1"..HEAD
