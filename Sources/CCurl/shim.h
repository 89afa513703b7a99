// Typed, non-variadic wrappers around libcurl's variadic setopt/getinfo calls, and the macros the
// Swift side needs as constants. Swift cannot call C variadic functions.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode ccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_ALL); }

static inline CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }
static inline CURLcode ccurl_easy_setopt_debug_function(CURL *h, curl_debug_callback v) { return curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, v); }

static inline CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

static inline unsigned long ccurl_auth_basic(void) { return CURLAUTH_BASIC; }
static inline unsigned long ccurl_auth_digest(void) { return CURLAUTH_DIGEST; }
static inline unsigned long ccurl_auth_bearer(void) { return CURLAUTH_BEARER; }
static inline long ccurl_max_read_size(void) { return CURL_MAX_READ_SIZE; }
static inline long ccurl_max_write_size(void) { return CURL_MAX_WRITE_SIZE; }
static inline int ccurl_errorsize(void) { return CURL_ERROR_SIZE; }
static inline size_t ccurl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline int ccurl_pause_cont(void) { return CURLPAUSE_CONT; }

#endif
