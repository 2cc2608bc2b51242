//go:build !linux

package main

import "net"

// rawIOListener returns ln: raw socket I/O is Linux's only
// (rawio_linux.go).
func rawIOListener(ln net.Listener) net.Listener { return ln }
