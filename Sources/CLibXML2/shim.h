/* libxml2's push parser (SAX2) and streaming reader (xmlTextReader): GPX files the byte scanner
   declines, KML and OSM are read with a real XML parser. */
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its headers would pull in the system's ICU,
   which clashes with the ICU inside Foundation. vsh uses no ICU-dependent
   libxml2 structure (only opaque pointers), so the ICU parts are left out. */
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>

#include <vsh_lazy.h>

/* libxml2 is loaded on first use, not linked: it brings ICU, zlib and liblzma, five of the
   libraries a command would otherwise load at start-up (about 2 ms of every command's
   start), and most commands never read XML (`vsh gpx` reads a plain GPX file with its own byte
   scanner). Swift calls these vsh_ wrappers; a libxml2 function called by its own name would not
   link. */
VSH_LAZY_LIBRARY(vsh_xml_library, "libxml2.so", "libxml2.so.2")
/* NULL once libxml2 is loaded, else the loader's words. */
static inline const char *vsh_xml_load_error(void) { return vsh_xml_library() ? NULL : dlerror(); }

static inline int vsh_xmlSAX2GetLineNumber(void *context) {
    return VSH_LAZY(vsh_xml_library, xmlSAX2GetLineNumber)(context);
}
static inline void vsh_xmlStopParser(xmlParserCtxtPtr context) { VSH_LAZY(vsh_xml_library, xmlStopParser)(context); }
static inline void vsh_xmlFreeParserCtxt(xmlParserCtxtPtr context) {
    VSH_LAZY(vsh_xml_library, xmlFreeParserCtxt)(context);
}
static inline xmlParserCtxtPtr vsh_xmlCreatePushParserCtxt(xmlSAXHandlerPtr sax, void *user, const char *chunk,
                                                          int size, const char *filename) {
    return VSH_LAZY(vsh_xml_library, xmlCreatePushParserCtxt)(sax, user, chunk, size, filename);
}
static inline int vsh_xmlParseChunk(xmlParserCtxtPtr context, const char *chunk, int size, int terminate) {
    return VSH_LAZY(vsh_xml_library, xmlParseChunk)(context, chunk, size, terminate);
}
static inline int vsh_xmlCtxtUseOptions(xmlParserCtxtPtr context, int options) {
    return VSH_LAZY(vsh_xml_library, xmlCtxtUseOptions)(context, options);
}
static inline xmlTextReaderPtr vsh_xmlReaderForFile(const char *filename, const char *encoding, int options) {
    return VSH_LAZY(vsh_xml_library, xmlReaderForFile)(filename, encoding, options);
}
static inline void vsh_xmlFreeTextReader(xmlTextReaderPtr reader) {
    VSH_LAZY(vsh_xml_library, xmlFreeTextReader)(reader);
}
static inline void vsh_xmlTextReaderSetStructuredErrorHandler(xmlTextReaderPtr reader, xmlStructuredErrorFunc f,
                                                              void *argument) {
    VSH_LAZY(vsh_xml_library, xmlTextReaderSetStructuredErrorHandler)(reader, f, argument);
}
static inline int vsh_xmlTextReaderRead(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderRead)(reader);
}
static inline int vsh_xmlTextReaderNodeType(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderNodeType)(reader);
}
static inline int vsh_xmlTextReaderIsEmptyElement(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderIsEmptyElement)(reader);
}
static inline const xmlChar *vsh_xmlTextReaderConstLocalName(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderConstLocalName)(reader);
}
static inline const xmlChar *vsh_xmlTextReaderConstValue(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderConstValue)(reader);
}
static inline xmlChar *vsh_xmlTextReaderGetAttribute(xmlTextReaderPtr reader, const xmlChar *name) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderGetAttribute)(reader, name);
}
static inline xmlNodePtr vsh_xmlTextReaderCurrentNode(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderCurrentNode)(reader);
}
static inline int vsh_xmlTextReaderGetParserLineNumber(xmlTextReaderPtr reader) {
    return VSH_LAZY(vsh_xml_library, xmlTextReaderGetParserLineNumber)(reader);
}
static inline long vsh_xmlGetLineNo(const xmlNode *node) { return VSH_LAZY(vsh_xml_library, xmlGetLineNo)(node); }

/* xmlFree is a global function pointer (a variable of libxml2's): Swift 6 will not read a
   mutable global. VSH_LAZY gives the variable's address, as dlsym does for a variable. */
static inline void vsh_xml_free(void *pointer) { (*VSH_LAZY(vsh_xml_library, xmlFree))(pointer); }

/* libxml2 reports some problems (an encoding it cannot convert, for one) through its
   "generic" error function, which prints to stderr. vsh reports every problem itself in one
   line naming the file, so that function is silenced on the calling thread (libxml2 keeps it
   per thread) for the length of one parse, and what was there before is put back after. */
static void vsh_xml_ignore(void *context, const char *message, ...) { (void)context; (void)message; }
typedef struct { xmlGenericErrorFunc function; void *context; } vsh_xml_error_handler;
static inline vsh_xml_error_handler vsh_xml_silence(void) {
    vsh_xml_error_handler saved = { *VSH_LAZY(vsh_xml_library, __xmlGenericError)(),
                                    *VSH_LAZY(vsh_xml_library, __xmlGenericErrorContext)() };
    VSH_LAZY(vsh_xml_library, xmlSetGenericErrorFunc)(NULL, vsh_xml_ignore);
    return saved;
}
static inline void vsh_xml_restore(vsh_xml_error_handler saved) {
    VSH_LAZY(vsh_xml_library, xmlSetGenericErrorFunc)(saved.context, saved.function);
}
