// Gumbo, Debian's libgumbo-dev: an HTML5 parser whose tree construction is the one browsers use.
#include <gumbo.h>
