#include "vsh_lazy.h"

#include <stdio.h>
#include <stdlib.h>

void *vsh_lazy_open(void **handle, const char *name, const char *soname) {
    void *h = __atomic_load_n(handle, __ATOMIC_ACQUIRE);
    if (!h) {
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h) h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        __atomic_store_n(handle, h, __ATOMIC_RELEASE);
    }
    return h;
}

void vsh_lazy_require(const char *library, const char *error, const char *package) {
    if (!error) return;
    fprintf(stderr, "vsh: %s cannot be loaded (%s); install it (Debian: %s)\n", library, error, package);
    exit(69);
}
