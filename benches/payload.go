package benches

// Payload returns n bytes of xorshift32 noise, the same on every call and
// every run. Nothing on the way (cipher, socket, file system) can compress
// or dedupe it, so no figure gains from what it moves; a caller that
// repeats a block varies it (see ferrybench's makeBigFile).
func Payload(n int) []byte {
	p := make([]byte, n)
	x := uint32(2463534242)
	for i := range p {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		p[i] = byte(x)
	}
	return p
}
