// zstd for Swift, from Debian's libzstd-dev. The advanced decompression parameters
// (ZSTD_d_windowLogMax, for the long windows of Pushshift and Arctic Shift dumps) are stable API.
#include <zstd.h>
#include <zstd_errors.h>
