/* bench/http-floor.c: the floor for bench/http.py. An evhttp server on 127.0.0.1 (port from argv[1], 0 picks a
 * free one) that answers every request with the same small JSON, on the loop thread. It prints
 * "listening on PORT" and serves until killed. What it costs is what evhttp and the kernel cost; ck serve's row
 * over it is what ck adds (worker hand-off, routing, JSON, the store).
 *   gcc -O2 -o http-floor http-floor.c -levent */
#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

static const char body[] = "{\"records\":[{\"recordName\":\"r1\",\"recordType\":\"Note\",\"fields\":{}}]}";

static void answer(struct evhttp_request *req, void *arg) {
    (void)arg;
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, body, sizeof body - 1);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json; charset=UTF-8");
    evhttp_send_reply(req, 200, "OK", b);
    evbuffer_free(b);
}

int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 0;
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
    evhttp_set_gencb(http, answer, NULL);
    struct evhttp_bound_socket *s = evhttp_bind_socket_with_handle(http, "127.0.0.1", (ev_uint16_t)port);
    if (!s) { perror("bind"); return 1; }
    struct sockaddr_in a; socklen_t n = sizeof a;
    getsockname(evhttp_bound_socket_get_fd(s), (struct sockaddr *)&a, &n);
    printf("listening on %d\n", ntohs(a.sin_port));
    fflush(stdout);
    event_base_dispatch(base);
    return 0;
}
