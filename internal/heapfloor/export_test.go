package heapfloor

// StartNotifying is Start with a hook called after every adjustment that
// follows a collection, for tests that wait on the tuner.
var StartNotifying = start
