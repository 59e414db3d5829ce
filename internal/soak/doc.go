// Package soak holds the load-and-fault soak of the hosted adapter (`make
// soak`): the built pdpp-mcp binary serving against an in-process mock RS,
// 64 concurrent MCP clients over every tool for a minute, with RS faults
// switched on for the middle quarter. It is a test behind the `soak` build
// tag, never part of `make test`; this file only names the package.
package soak
