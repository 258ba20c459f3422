package present

import (
	"math"
	"testing"
)

const mib = 1 << 20

func TestBinaryBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {10*1024 - 1, "10 KiB"}, {1024*mib - 1, "1.0 GiB"}, {10 * 1024, "10 KiB"},
		{mib, "1.0 MiB"}, {412 * mib, "412 MiB"}, {1 << 30, "1.0 GiB"}, {1 << 40, "1.0 TiB"}, {math.MaxInt64, "8.0 EiB"},
	}
	for _, tt := range tests {
		if got := Binary.Bytes(tt.n); got != tt.want {
			t.Errorf("Binary.Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestDecimalBytes(t *testing.T) {
	tests := map[int64]string{
		0: "0 bytes", 1: "1 byte", 999: "999 bytes", 1000: "1.00 kB", 2500: "2.50 kB",
		99_949: "99.9 kB", 999_949: "1.00 MB", 1_843_200_000: "1.84 GB", 1 << 62: "4.61 EB",
		math.MaxInt64: "9.22 EB",
	}
	for n, want := range tests {
		if got := Decimal.Bytes(n); got != want {
			t.Errorf("Decimal.Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRate(t *testing.T) {
	tests := []struct {
		u    Units
		bps  float64
		want string
	}{
		{Decimal, 48_700_000, "48.7 MB/s"}, {Binary, 110 * mib, "110 MiB/s"},
		{Decimal, 0, ""}, {Binary, 0, ""}, {Binary, -1, ""},
		{Decimal, math.NaN(), ""}, {Decimal, math.Inf(1), ""},
	}
	for _, tt := range tests {
		if got := tt.u.Rate(tt.bps); got != tt.want {
			t.Errorf("Units(%d).Rate(%v) = %q, want %q", tt.u, tt.bps, got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := Plural(n, "file", "files"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
