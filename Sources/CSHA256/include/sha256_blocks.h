/* SHA-256's compression function on the CPU's SHA extensions (x86-64 SHA-NI), for VSHCore's
   SHA256. Photos are hashed three times each (file, image data, decoded pixels): the portable
   Swift rounds ran at 0.3 GB/s, these at about 2. On a CPU or architecture without them,
   vsh_sha256_hardware() is 0 and VSHCore keeps its portable rounds. */
#ifndef VSH_SHA256_BLOCKS_H
#define VSH_SHA256_BLOCKS_H
#include <stddef.h>
#include <stdint.h>

/* 1 when vsh_sha256_blocks can run on this CPU, else 0. */
int vsh_sha256_hardware(void);

/* Compresses `count` 64-byte blocks at `data` into `state` (the eight working words, in the
   standard order). Only to be called when vsh_sha256_hardware() is 1. */
void vsh_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count);
#endif
