/* The loader shared by the shims of the libraries vsh loads on first use (SpatiaLite, PROJ,
   libheif, ICU): they are not linked, so that a command that does not need them does not load
   them at start-up (`vsh --help` loaded 74 shared libraries, most of them their dependencies:
   curl, GnuTLS, Kerberos, x265, AV1 codecs). VSH_LAZY_LIBRARY defines a function that opens a
   library once (the development name first, then the soname); VSH_LAZY(library, symbol) is the
   symbol, typed by the library's own header, looked up once and kept (atomics: any thread may be
   first). */
#ifndef VSH_LAZY_H
#define VSH_LAZY_H
#include <dlfcn.h>
#include <stddef.h>

/* Opens `name`, else `soname`, once per `handle` (a static of the caller); NULL when neither
   loads (dlerror() then says why). */
void *vsh_lazy_open(void **handle, const char *name, const char *soname);

/* Stops the command when a library it needs could not be loaded (`error` is why; NULL: it was):
   one line on standard error naming the library and the Debian package that brings it, and exit
   status 69 (unavailable), the same for every library a command needs (PROJ, libxml2). */
void vsh_lazy_require(const char *library, const char *error, const char *package);

#define VSH_LAZY_LIBRARY(function, name, soname)                                 \
    static inline void *function(void) {                                         \
        static void *handle;                                                     \
        return vsh_lazy_open(&handle, name, soname);                             \
    }

#define VSH_LAZY(library, symbol)                                                \
    ({                                                                           \
        static __typeof__(&symbol) cached;                                       \
        __typeof__(&symbol) f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);      \
        if (!f) {                                                                \
            f = (__typeof__(&symbol))dlsym(library(), #symbol);                  \
            __atomic_store_n(&cached, f, __ATOMIC_RELEASE);                      \
        }                                                                        \
        f;                                                                       \
    })
#endif
