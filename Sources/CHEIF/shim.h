#include <libheif/heif.h>

#include <vsh_lazy.h>

VSH_LAZY_LIBRARY(vsh_heif_library, "libheif.so", "libheif.so.1")
/* NULL once libheif is loaded, else the loader's words. */
static inline const char *vsh_heif_load_error(void) { return vsh_heif_library() ? NULL : dlerror(); }
static inline void vsh_heif_image_release(const struct heif_image *image) {
    VSH_LAZY(vsh_heif_library, heif_image_release)(image);
}
static inline void vsh_heif_image_handle_release(const struct heif_image_handle *handle) {
    VSH_LAZY(vsh_heif_library, heif_image_handle_release)(handle);
}
static inline int vsh_heif_image_handle_get_width(const struct heif_image_handle *handle) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_width)(handle);
}
static inline int vsh_heif_image_handle_get_height(const struct heif_image_handle *handle) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_height)(handle);
}
static inline int vsh_heif_image_handle_get_number_of_metadata_blocks(const struct heif_image_handle *handle, const char *type_filter) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_number_of_metadata_blocks)(handle, type_filter);
}
static inline int vsh_heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_list_of_metadata_block_IDs)(handle, type_filter, ids, count);
}
static inline size_t vsh_heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_metadata_size)(handle, metadata_id);
}
static inline struct heif_error vsh_heif_image_handle_get_metadata(const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data) {
    return VSH_LAZY(vsh_heif_library, heif_image_handle_get_metadata)(handle, metadata_id, out_data);
}
static inline int vsh_heif_image_get_width(const struct heif_image *image, enum heif_channel channel) {
    return VSH_LAZY(vsh_heif_library, heif_image_get_width)(image, channel);
}
static inline int vsh_heif_image_get_height(const struct heif_image *image, enum heif_channel channel) {
    return VSH_LAZY(vsh_heif_library, heif_image_get_height)(image, channel);
}
static inline const uint8_t *vsh_heif_image_get_plane_readonly(const struct heif_image *image, enum heif_channel channel, int *out_stride) {
    return VSH_LAZY(vsh_heif_library, heif_image_get_plane_readonly)(image, channel, out_stride);
}
static inline struct heif_error vsh_heif_decode_image(const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options) {
    return VSH_LAZY(vsh_heif_library, heif_decode_image)(in_handle, out_img, colorspace, chroma, options);
}
static inline void vsh_heif_context_set_maximum_image_size_limit(struct heif_context *ctx, int maximum_width) {
    VSH_LAZY(vsh_heif_library, heif_context_set_maximum_image_size_limit)(ctx, maximum_width);
}
static inline struct heif_error vsh_heif_context_read_from_memory_without_copy(struct heif_context *ctx, const void *mem, size_t size, const struct heif_reading_options *options) {
    return VSH_LAZY(vsh_heif_library, heif_context_read_from_memory_without_copy)(ctx, mem, size, options);
}
static inline struct heif_error vsh_heif_context_get_primary_image_handle(struct heif_context *ctx, struct heif_image_handle **handle) {
    return VSH_LAZY(vsh_heif_library, heif_context_get_primary_image_handle)(ctx, handle);
}
static inline void vsh_heif_context_free(struct heif_context *ctx) {
    VSH_LAZY(vsh_heif_library, heif_context_free)(ctx);
}
static inline struct heif_context *vsh_heif_context_alloc(void) {
    return VSH_LAZY(vsh_heif_library, heif_context_alloc)();
}
static inline enum heif_filetype_result vsh_heif_check_filetype(const uint8_t *data, int len) {
    return VSH_LAZY(vsh_heif_library, heif_check_filetype)(data, len);
}
