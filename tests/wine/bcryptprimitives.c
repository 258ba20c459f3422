/*
 * bcryptprimitives.dll for Debian's Wine 8.0, which has none: Go's Windows
 * runtime loads it from system32 at start and calls ProcessPrng, the
 * process-wide random generator of Windows 10 and later, for all of its
 * randomness. This one function is all a Go program needs of it; it
 * forwards to RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * tests/wine_test.go builds it with mingw-w64 into the test's own Wine
 * prefix only: on Windows the real DLL is always there.
 */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n)
{
	/* RtlGenRandom takes a ULONG length; ProcessPrng a SIZE_T one. */
	while (n > 0) {
		ULONG chunk = n > 0x40000000 ? 0x40000000 : (ULONG)n;
		if (!RtlGenRandom(data, chunk))
			return FALSE;
		data += chunk;
		n -= chunk;
	}
	return TRUE;
}
