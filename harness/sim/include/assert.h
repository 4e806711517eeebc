// The simulator's <assert.h>: the C library's, except that a failing assert in device code ends its
// kernel with cudaErrorAssert ("device-side assert triggered"), as a GPU does, instead of aborting
// the whole runner; in host code it aborts as always. No include guard: <assert.h> may be included
// again after NDEBUG changes, as the C standard allows.
#include_next <assert.h>
#if !defined(NDEBUG) && defined(__cplusplus)
#undef assert
/// Ends the calling CUDA thread's kernel with cudaErrorAssert; outside a kernel, aborts as the C library's assert does.
extern "C" void cudalab_sim_assert_fail(const char* expression, const char* file, unsigned line, const char* function);
#define assert(e) \
  (static_cast<bool>(e) ? void(0) : cudalab_sim_assert_fail(#e, __FILE__, __LINE__, __extension__ __PRETTY_FUNCTION__))
#endif
