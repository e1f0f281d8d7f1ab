package tool

// RecordCounts returns how many records the RecordSlots of this process
// decoded and encoded so far.
func RecordCounts() (decoded, encoded int64) { return recordDecodes.Load(), recordEncodes.Load() }
