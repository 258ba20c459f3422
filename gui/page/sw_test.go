package page

import "testing"

// The service worker behind the stream method (sw.js) answers every
// batch the page posts, however the download reads: the page posts its
// whole window at once, and the reader takes every queued chunk in one
// go, so the stream asks for more (pull) fewer times than batches were
// held back. sw.js answered one held batch a pull, so a download got
// all its bytes and then stalled for ever with the page waiting for the
// last answers (seen in CI, under load, in tests/browser's
// TestPageReceives). Node runs sw.js with a stand-in for the worker's
// global; the stream, the messages and the Response are Node's own
// (the browser's download manager is what cannot run here).
func TestServiceWorkerAnswersEveryBatch(t *testing.T) {
	var got struct {
		Acks, Data, Bytes int
		InOrder, Done     bool
		Failed            *string
	}
	nodeJSON(t, "running the page's service worker", &got, "testdata/sw_driver.js", "sw.js")
	if got.Data != 8 || got.Acks != 10 || !got.Done {
		t.Fatalf("%d of 8 batches answered (%d answers in all, closed %v): the page would wait for ever", got.Data, got.Acks, got.Done)
	}
	if got.Bytes != 8<<20 || !got.InOrder || got.Failed != nil {
		t.Fatalf("the download read %d bytes, in order %v, failure %v", got.Bytes, got.InOrder, got.Failed)
	}
}
