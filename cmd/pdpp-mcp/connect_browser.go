package main

import (
	"os/exec"
	"runtime"
)

// openBrowser asks the desktop to open u; false when there is no way to
// (no opener installed, or no display on Linux: a headless machine, where
// the printed URL is the way). The opener is not waited for beyond its
// start: xdg-open and open return once they handed the URL on.
func openBrowser(u string, env func(string) string) bool {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		if env("DISPLAY") == "" && env("WAYLAND_DISPLAY") == "" {
			return false
		}
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return false
	}
	cmd := exec.Command(path, append(args, u)...)
	if cmd.Start() != nil {
		return false
	}
	go func() { _ = cmd.Wait() }() // reap it
	return true
}
