/* ICU's libicui18n is loaded on first use, like SpatiaLite, PROJ and libheif (CLazyLoad): most
   commands never compare names. ICU versions its symbols (uspoof_open_72), so they are looked up
   as the header's renaming macros spell them. */
#include "vsh_confusables.h"

#include <unicode/uspoof.h>
#include <unicode/uvernum.h>

#include <vsh_lazy.h>

#define VSH_ICU_TEXT(x) VSH_ICU_TEXT2(x)
#define VSH_ICU_TEXT2(x) #x

VSH_LAZY_LIBRARY(vsh_icu_library, "libicui18n.so", "libicui18n.so." VSH_ICU_TEXT(U_ICU_VERSION_MAJOR_NUM))

#define VSH_ICU(symbol)                                                                    \
    ({                                                                                     \
        static __typeof__(&symbol) cached;                                                 \
        __typeof__(&symbol) f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);                \
        if (!f && vsh_icu_library()) {                                                     \
            f = (__typeof__(&symbol))dlsym(vsh_icu_library(), VSH_ICU_TEXT(symbol));       \
            __atomic_store_n(&cached, f, __ATOMIC_RELEASE);                                \
        }                                                                                  \
        f;                                                                                 \
    })

const void *vsh_spoof_open(void) {
    __typeof__(&uspoof_open) open = VSH_ICU(uspoof_open);
    if (!open) return NULL;
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker *checker = open(&status);
    return U_FAILURE(status) ? NULL : checker;
}

int32_t vsh_spoof_skeleton(const void *checker, const uint16_t *text, int32_t length, uint16_t *out,
                           int32_t capacity) {
    __typeof__(&uspoof_getSkeleton) skeleton = VSH_ICU(uspoof_getSkeleton);
    if (!skeleton || !checker) return -1;
    UErrorCode status = U_ZERO_ERROR;
    int32_t written = skeleton((const USpoofChecker *)checker, 0, (const UChar *)text, length, (UChar *)out,
                               capacity, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) return -2 - written;
    return U_FAILURE(status) ? -1 : written;
}
