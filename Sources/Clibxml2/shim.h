// libxml2 for Swift. Debian builds libxml2 with ICU, and its encoding.h then includes ICU's
// headers, which clash with the ICU inside Foundation. Threadfold never touches libxml2's
// encoding handlers (it passes UTF-8 and reads nodes), so ICU is switched off for the headers.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
