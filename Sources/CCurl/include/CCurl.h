#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>
#include <stdint.h>

/// One HTTP(S) fetch through libcurl, run on the caller's (blocking) thread. Every libcurl call and
/// error stays in this file; the caller sees a status code, an HTTP status and a message.
///
/// Why libcurl directly and not URLSession: on Linux URLSession (FoundationNetworking, itself over
/// libcurl) takes proxies only from the process environment and offers no hook between the DNS
/// lookup and the `connect`. libcurl's CURLOPT_OPENSOCKETFUNCTION is that hook: `allow_address` is
/// asked for every address libcurl is about to connect to (each redirect hop, each address tried),
/// so the policy is checked on exactly the address connected to, per fetch, with no proxy and no
/// global state.

typedef struct cc_fetch cc_fetch;

/// Outcome of `cc_fetch_run`.
typedef enum {
    CC_FETCH_OK = 0,
    /// `allow_address` refused every address tried (the caller kept its own reason).
    CC_FETCH_REFUSED,
    CC_FETCH_CANCELLED,
    CC_FETCH_TIMEOUT,
    /// The body (declared or received) exceeds `max_bytes`.
    CC_FETCH_TOO_LARGE,
    CC_FETCH_TOO_MANY_REDIRECTS,
    /// A redirect to a scheme other than http or https.
    CC_FETCH_BAD_REDIRECT,
    CC_FETCH_CANNOT_RESOLVE,
    /// The final response is not 2xx (`status` says which).
    CC_FETCH_HTTP_STATUS,
    /// Anything else libcurl reports (`message` says what).
    CC_FETCH_FAILED,
} cc_fetch_code;

/// Asked before each connection: 1 to connect to `address` (numeric, `127.0.0.1` or `::1`) on
/// `port` for `host` (the URL's host being fetched at that moment), 0 to refuse.
typedef int (*cc_fetch_address_check)(void *context, const char *host, const char *address, int port);

typedef struct {
    const char *url;
    long max_redirects;
    int64_t max_bytes;
    long timeout_ms;
    /// 1: libcurl's usual proxy variables apply (`--urls any`); 0: no proxy, ever (a proxy would
    /// resolve names where the check cannot see them).
    int use_environment_proxies;
    /// Optional CURLOPT_CONNECT_TO entries (`host::address:`), NULL-terminated (tests' resolver).
    const char *const *connect_to;
    /// The User-Agent header (some servers refuse requests without one); NULL sends none.
    const char *user_agent;
    /// Optional; NULL connects anywhere.
    cc_fetch_address_check allow_address;
    void *context;
} cc_fetch_request;

typedef struct {
    cc_fetch_code code;
    /// The last HTTP status received (0: none).
    long status;
    /// libcurl's description of a failure ("" on success).
    char message[256];
    /// The body on success (malloc'd; free with `cc_fetch_body_free`), else NULL.
    uint8_t *body;
    size_t length;
} cc_fetch_result;

/// A fetch that can be cancelled from another thread; NULL when libcurl cannot be initialised.
cc_fetch *cc_fetch_new(void);
/// Runs the fetch to its end (blocking). Call at most once per `cc_fetch`.
void cc_fetch_run(cc_fetch *fetch, const cc_fetch_request *request, cc_fetch_result *result);
/// Makes a running (or later) `cc_fetch_run` return CC_FETCH_CANCELLED promptly. Thread-safe; must
/// not race with `cc_fetch_free`.
void cc_fetch_cancel(cc_fetch *fetch);
void cc_fetch_free(cc_fetch *fetch);
void cc_fetch_body_free(uint8_t *body);

#endif
