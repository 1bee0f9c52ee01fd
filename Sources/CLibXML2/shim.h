/* libxml2's streaming reader (xmlTextReader): GPX is read with a real XML parser. */
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its headers would pull in the system's ICU,
   which clashes with the ICU inside Foundation. vsh uses no ICU-dependent
   libxml2 structure (only opaque pointers), so the ICU parts are left out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

/* xmlFree is a global function pointer: Swift 6 will not read a mutable global. */
static inline void vsh_xml_free(void *pointer) { xmlFree(pointer); }
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>

/* libxml2 reports some problems (an encoding it cannot convert, for one) through its
   "generic" error function, which prints to stderr. vsh reports every problem itself in one
   line naming the file, so that function is silenced on the calling thread (libxml2 keeps it
   per thread) for the length of one parse, and what was there before is put back after. */
static void vsh_xml_ignore(void *context, const char *message, ...) { (void)context; (void)message; }
typedef struct { xmlGenericErrorFunc function; void *context; } vsh_xml_error_handler;
static inline vsh_xml_error_handler vsh_xml_silence(void) {
    vsh_xml_error_handler saved = { *__xmlGenericError(), *__xmlGenericErrorContext() };
    xmlSetGenericErrorFunc(NULL, vsh_xml_ignore);
    return saved;
}
static inline void vsh_xml_restore(vsh_xml_error_handler saved) { xmlSetGenericErrorFunc(saved.context, saved.function); }
