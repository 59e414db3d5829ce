package contentladder

// Quote exposes quote to the external tests, which compare its cut with
// page.TruncateRunes (page builds on this package, so only an external
// test can hold both).
var Quote = quote
