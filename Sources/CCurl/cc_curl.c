#include "CCurl.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct cc_fetch {
    CURLM *multi;
    atomic_int cancelled;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_ok;

static void global_init(void) { global_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }

cc_fetch *cc_fetch_new(void) {
    pthread_once(&global_once, global_init);
    if (!global_ok) return NULL;
    cc_fetch *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->multi = curl_multi_init();
    if (!f->multi) {
        free(f);
        return NULL;
    }
    return f;
}

void cc_fetch_cancel(cc_fetch *f) {
    atomic_store(&f->cancelled, 1);
    curl_multi_wakeup(f->multi);
}

void cc_fetch_free(cc_fetch *f) {
    if (!f) return;
    curl_multi_cleanup(f->multi);
    free(f);
}

void cc_fetch_body_free(uint8_t *body) { free(body); }

/// What the callbacks share during one run.
typedef struct {
    CURL *easy;
    const cc_fetch_request *request;
    uint8_t *body;
    size_t length, capacity;
    int too_large;
    int refused;
    int bad_status;
} run_state;

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    run_state *s = user;
    size_t n = size * count;
    long status = 0;
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    // Not the body of a failure: stop at once rather than download an error page.
    if (status < 200 || status > 299) {
        s->bad_status = 1;
        return 0;
    }
    if ((int64_t)(s->length + n) > s->request->max_bytes) {
        s->too_large = 1;
        return 0;
    }
    if (s->length + n > s->capacity) {
        size_t want = s->capacity ? s->capacity : 64 * 1024;
        while (want < s->length + n) want *= 2;
        if ((int64_t)want > s->request->max_bytes) want = (size_t)s->request->max_bytes;
        uint8_t *grown = realloc(s->body, want);
        if (!grown) return 0;
        s->body = grown;
        s->capacity = want;
    }
    memcpy(s->body + s->length, data, n);
    s->length += n;
    return n;
}

/// The host of the URL libcurl is connecting for (the current redirect hop), into `out`.
static void current_host(CURL *easy, char *out, size_t size) {
    out[0] = 0;
    char *url = NULL;
    if (curl_easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url) return;
    CURLU *u = curl_url();
    if (!u) return;
    char *host = NULL;
    if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK && curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        snprintf(out, size, "%s", host);
        curl_free(host);
    }
    curl_url_cleanup(u);
}

static curl_socket_t on_open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *a) {
    run_state *s = user;
    const cc_fetch_request *r = s->request;
    if (r->allow_address) {
        char text[INET6_ADDRSTRLEN] = {0};
        int port = 0;
        if (a->family == AF_INET) {
            const struct sockaddr_in *v4 = (const void *)&a->addr;
            inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
            port = ntohs(v4->sin_port);
        } else if (a->family == AF_INET6) {
            const struct sockaddr_in6 *v6 = (const void *)&a->addr;
            inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
            port = ntohs(v6->sin6_port);
        } else {
            s->refused = 1;
            return CURL_SOCKET_BAD;
        }
        char host[256];
        current_host(s->easy, host, sizeof host);
        if (!r->allow_address(r->context, host, text, port)) {
            s->refused = 1;
            return CURL_SOCKET_BAD;
        }
    }
    (void)purpose;
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

static void set_failure(cc_fetch_result *result, cc_fetch_code code, const char *message) {
    result->code = code;
    snprintf(result->message, sizeof result->message, "%s", message ? message : "");
}

void cc_fetch_run(cc_fetch *f, const cc_fetch_request *r, cc_fetch_result *result) {
    memset(result, 0, sizeof *result);
    run_state s = {0};
    s.request = r;
    CURL *easy = curl_easy_init();
    if (!easy) {
        set_failure(result, CC_FETCH_FAILED, "libcurl could not start a transfer");
        return;
    }
    s.easy = easy;
    char error[CURL_ERROR_SIZE] = {0};
    struct curl_slist *connect_to = NULL;
    for (const char *const *e = r->connect_to; e && *e; e++) connect_to = curl_slist_append(connect_to, *e);

    curl_easy_setopt(easy, CURLOPT_URL, r->url);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(easy, CURLOPT_MAXREDIRS, r->max_redirects);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_bytes);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    if (r->user_agent) curl_easy_setopt(easy, CURLOPT_USERAGENT, r->user_agent);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, &s);
    // One connection per fetch, never reused by another: each is checked when it opens.
    curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
    if (!r->use_environment_proxies) curl_easy_setopt(easy, CURLOPT_PROXY, "");
    if (connect_to) curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_to);

    CURLcode outcome = CURLE_OK;
    int cancelled = 0;
    curl_multi_add_handle(f->multi, easy);
    for (;;) {
        if (atomic_load(&f->cancelled)) {
            cancelled = 1;
            break;
        }
        int running = 0;
        CURLMcode m = curl_multi_perform(f->multi, &running);
        if (m != CURLM_OK) {
            outcome = CURLE_FAILED_INIT;
            snprintf(error, sizeof error, "%s", curl_multi_strerror(m));
            break;
        }
        int queued = 0;
        CURLMsg *msg;
        int done = 0;
        while ((msg = curl_multi_info_read(f->multi, &queued))) {
            if (msg->msg == CURLMSG_DONE) {
                outcome = msg->data.result;
                done = 1;
            }
        }
        if (done || running == 0) break;
        // Wakes for socket activity, libcurl's own timers (the total timeout) or cc_fetch_cancel.
        curl_multi_poll(f->multi, NULL, 0, 1000, NULL);
    }
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result->status);
    curl_multi_remove_handle(f->multi, easy);
    curl_easy_cleanup(easy);
    curl_slist_free_all(connect_to);

    if (cancelled) {
        set_failure(result, CC_FETCH_CANCELLED, "cancelled");
    } else if (s.too_large || outcome == CURLE_FILESIZE_EXCEEDED) {
        set_failure(result, CC_FETCH_TOO_LARGE, "the body exceeds the limit");
    } else if (s.bad_status || (outcome == CURLE_OK && (result->status < 200 || result->status > 299))) {
        set_failure(result, CC_FETCH_HTTP_STATUS, "");
    } else if (outcome == CURLE_OK) {
        result->code = CC_FETCH_OK;
        result->body = s.body;
        result->length = s.length;
        s.body = NULL;
    } else if (s.refused && outcome == CURLE_COULDNT_CONNECT) {
        set_failure(result, CC_FETCH_REFUSED, error);
    } else if (outcome == CURLE_OPERATION_TIMEDOUT) {
        set_failure(result, CC_FETCH_TIMEOUT, error);
    } else if (outcome == CURLE_TOO_MANY_REDIRECTS) {
        set_failure(result, CC_FETCH_TOO_MANY_REDIRECTS, error);
    } else if (outcome == CURLE_UNSUPPORTED_PROTOCOL) {
        set_failure(result, CC_FETCH_BAD_REDIRECT, error);
    } else if (outcome == CURLE_COULDNT_RESOLVE_HOST) {
        set_failure(result, CC_FETCH_CANNOT_RESOLVE, error);
    } else {
        set_failure(result, CC_FETCH_FAILED, error[0] ? error : curl_easy_strerror(outcome));
    }
    free(s.body);
}
