// Brotli's encoder for Swift, from Debian's libbrotli-dev: the site's .br siblings (--precompress).
#include <brotli/encode.h>
