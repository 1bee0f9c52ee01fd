/* jpeglib.h uses FILE and size_t without including their headers. */
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
