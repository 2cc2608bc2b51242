//go:build !linux

package main

import (
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// rawIOListener returns ln: raw socket I/O is Linux's only
// (rawio_linux.go).
func rawIOListener(ln net.Listener) net.Listener { return ln }

// rawIODial returns dial (rawio_linux.go).
func rawIODial(dial pgconn.DialFunc) pgconn.DialFunc { return dial }
