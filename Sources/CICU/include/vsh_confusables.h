/* Unicode TR 39 confusable skeletons through ICU's spoof checker, behind plain C types: ICU's own
   headers stay out of Swift, whose Foundation carries a different ICU under the same type names. */
#ifndef VSH_CONFUSABLES_H
#define VSH_CONFUSABLES_H
#include <stdint.h>

/* A spoof checker for skeletons, or NULL when ICU cannot be loaded or opened. */
const void *vsh_spoof_open(void);

/* The skeleton of `text` (UTF-16, `length` units) into `out`: its length; -1 on an error; when
   `capacity` is too small, -2 minus the length needed. */
int32_t vsh_spoof_skeleton(const void *checker, const uint16_t *text, int32_t length, uint16_t *out,
                           int32_t capacity);
#endif
