/* jpeglib.h uses FILE and size_t without including their headers. */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/* libjpeg reports a fatal error by calling error_exit, which by default ends the
   process; the only way back is longjmp, which Swift cannot call. These two
   helpers are therefore the whole of libjpeg's use: decode (scaled) and encode. */

struct vsh_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /* The first warning that means the image data is not whole (0 when none). */
    int damage;
};

static void vsh_jpeg_error_exit(j_common_ptr cinfo) {
    struct vsh_jpeg_error *error = (struct vsh_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

static void vsh_jpeg_no_messages(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;
}

/* libjpeg goes on past a file cut short (it inserts an end of image and fills the rest
   grey) or past corrupt entropy-coded data, with only a warning: remembers the first. */
static void vsh_jpeg_note_damage(j_common_ptr cinfo, int level) {
    struct vsh_jpeg_error *error = (struct vsh_jpeg_error *)cinfo->err;
    int code = cinfo->err->msg_code;
    if (level < 0 && error->damage == 0 &&
        (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE)) {
        error->damage = code;
    }
}

/* A decode's bounds on work, checked by libjpeg's progress monitor (called once
   per scan line group and per input scan): a progressive file may declare any
   number of scans, each a pass over the whole image's coefficients. */
struct vsh_jpeg_progress {
    struct jpeg_progress_mgr pub;
    int max_scans;
};

static void vsh_jpeg_progress_monitor(j_common_ptr cinfo) {
    struct vsh_jpeg_progress *progress = (struct vsh_jpeg_progress *)cinfo->progress;
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && dinfo->input_scan_number > progress->max_scans) {
        struct vsh_jpeg_error *error = (struct vsh_jpeg_error *)cinfo->err;
        snprintf(error->message, sizeof error->message, "more than %d scans (a camera writes at most a few dozen)",
                 progress->max_scans);
        longjmp(error->jump, 1);
    }
}

/* Decodes JPEG bytes to 8-bit RGB, scaled down by 1/8, 1/4 or 1/2 when the
   smaller image still covers min_width x min_height (libjpeg's DCT scaling: the
   full image is never held). Refuses images whose output exceeds max_pixels,
   whose declared size exceeds max_declared_pixels, that have more than max_scans
   scans, or that need more than max_memory bytes of libjpeg's working memory (a
   progressive image keeps every coefficient of the full image; Debian's
   libjpeg-turbo has no backing store, so past the limit the decode stops).
   With refuse_damaged, an image whose data ends early (a file cut short, as by an
   interrupted upload) or is corrupt is refused instead of drawn with grey.
   Returns 0 and a malloc'd buffer (free() it), or -1 with a message. */
static inline int vsh_jpeg_decode(const unsigned char *data, unsigned long size, unsigned int min_width,
                                  unsigned int min_height, unsigned long max_pixels,
                                  unsigned long long max_declared_pixels, int max_scans, long max_memory,
                                  int refuse_damaged, unsigned char **pixels, unsigned int *width, unsigned int *height, char *message,
                                  size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct vsh_jpeg_error error;
    struct vsh_jpeg_progress progress;
    unsigned char *volatile buffer = NULL;
    error.message[0] = 0;
    error.damage = 0;
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = vsh_jpeg_error_exit;
    error.pub.emit_message = vsh_jpeg_note_damage;
    if (setjmp(error.jump)) {
        snprintf(message, message_size, "%s", error.message);
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = max_memory;
    progress.pub.progress_monitor = vsh_jpeg_progress_monitor;
    progress.max_scans = max_scans;
    cinfo.progress = &progress.pub;
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    if ((unsigned long long)cinfo.image_width * cinfo.image_height > max_declared_pixels) {
        snprintf(message, message_size, "it declares %u x %u pixels, more than any camera makes", cinfo.image_width,
                 cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    cinfo.out_color_space = JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 1;
    for (unsigned int d = 8; d >= 2; d /= 2) {
        if (cinfo.image_width / d >= min_width && cinfo.image_height / d >= min_height) {
            cinfo.scale_denom = d;
            break;
        }
    }
    jpeg_calc_output_dimensions(&cinfo);
    if ((unsigned long)cinfo.output_width * cinfo.output_height > max_pixels) {
        snprintf(message, message_size, "%u x %u pixels is too large to decode", cinfo.image_width, cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_start_decompress(&cinfo);
    buffer = malloc((size_t)cinfo.output_width * cinfo.output_height * 3);
    if (buffer == NULL) {
        snprintf(message, message_size, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buffer + (size_t)cinfo.output_scanline * cinfo.output_width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (refuse_damaged && error.damage != 0) {
        snprintf(message, message_size, "%s",
                 error.damage == JWRN_HUFF_BAD_CODE
                     ? "its image data is corrupt: a bad Huffman code"
                     : "its image data ends early: the file was cut short, as by an interrupted upload");
        free(buffer);
        return -1;
    }
    *pixels = buffer;
    return 0;
}

/* Encodes 8-bit RGB to a JPEG file. Returns 0, or -1 with a message. */
static inline int vsh_jpeg_encode(const char *path, const unsigned char *rgb, unsigned int width, unsigned int height,
                                  int quality, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct vsh_jpeg_error error;
    FILE *volatile file = fopen(path, "wb");
    if (file == NULL) {
        snprintf(message, message_size, "cannot create the file");
        return -1;
    }
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = vsh_jpeg_error_exit;
    error.pub.emit_message = vsh_jpeg_no_messages;
    if (setjmp(error.jump)) {
        snprintf(message, message_size, "%s", error.message);
        jpeg_destroy_compress(&cinfo);
        fclose(file);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (fclose(file) != 0) {
        snprintf(message, message_size, "cannot write the file (disk full?)");
        return -1;
    }
    return 0;
}
