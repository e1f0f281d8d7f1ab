//go:build linux

package sandbox

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// receive takes conn, a Unix socket, and serves the listener that comes
// over it (SCM_RIGHTS) until close; it returns at once. conn is closed.
func (p *proxy) receive(conn *os.File) error {
	c, err := net.FileConn(conn)
	conn.Close()
	if err != nil {
		return err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok || !p.track(c) {
		c.Close()
		return errors.New("not a Unix socket")
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer p.untrack(c)
		buf := make([]byte, 1)
		oob := make([]byte, syscall.CmsgSpace(4*4))
		_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
		if err != nil || oobn == 0 {
			return // the helper failed, or the run closed first
		}
		var fds []int
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if rights, err := syscall.ParseUnixRights(&m); err == nil {
					fds = append(fds, rights...)
				}
			}
		}
		if len(fds) != 1 {
			for _, fd := range fds {
				syscall.Close(fd)
			}
			return
		}
		f := os.NewFile(uintptr(fds[0]), "proxy-listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return
		}
		p.serve(ln)
	}()
	return nil
}
