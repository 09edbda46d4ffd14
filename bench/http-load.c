/* bench/http-load.c: a load driver for bench/http.py. CLIENTS threads, each with one keep-alive connection to
 * 127.0.0.1:PORT, send REQUESTS requests in all (one at a time per connection) and read each reply in full
 * (Content-Length). Prints "requests seconds failures". Loopback only; stops by itself.
 *   gcc -O2 -pthread -o http-load http-load.c
 *   http-load PORT CLIENTS REQUESTS METHOD TARGET [BODY] */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;
static char request[1 << 16];
static size_t request_len;
static atomic_long remaining;
static atomic_long failures;

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

/* Sends the request and reads one reply; 0 when it was a 200. */
static int exchange(int fd) {
    size_t off = 0;
    while (off < request_len) {
        ssize_t n = send(fd, request + off, request_len - off, MSG_NOSIGNAL);
        if (n <= 0) return -1;
        off += (size_t)n;
    }
    static __thread char buf[1 << 20];
    size_t have = 0;
    char *end = NULL;
    while (!end) {
        ssize_t n = recv(fd, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0) return -1;
        have += (size_t)n;
        buf[have] = 0;
        end = strstr(buf, "\r\n\r\n");
    }
    int status = atoi(buf + 9);
    char *cl = strcasestr(buf, "\r\nContent-Length:");
    size_t len = cl ? (size_t)atol(cl + 17) : 0;
    size_t want = (size_t)(end + 4 - buf) + len;
    while (have < want) {
        ssize_t n = recv(fd, buf + have, sizeof buf - 1 - have, 0);
        if (n <= 0) return -1;
        have += (size_t)n;
    }
    return status == 200 ? 0 : 1;
}

static void *client(void *arg) {
    (void)arg;
    int fd = dial();
    while (atomic_fetch_sub(&remaining, 1) > 0) {
        int r = fd < 0 ? -1 : exchange(fd);
        if (r != 0) atomic_fetch_add(&failures, 1);
        if (r < 0) { if (fd >= 0) close(fd); fd = dial(); }
    }
    if (fd >= 0) close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: http-load PORT CLIENTS REQUESTS METHOD TARGET [BODY]\n"); return 2; }
    port = atoi(argv[1]);
    int clients = atoi(argv[2]);
    long requests = atol(argv[3]);
    const char *body = argc > 6 ? argv[6] : "";
    request_len = (size_t)snprintf(request, sizeof request,
        "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
        argv[4], argv[5], port, strlen(body), body);
    atomic_store(&remaining, requests);
    pthread_t t[256];
    if (clients > 256) clients = 256;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < clients; i++) pthread_create(&t[i], NULL, client, NULL);
    for (int i = 0; i < clients; i++) pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%ld %.6f %ld\n", requests, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, atomic_load(&failures));
    return 0;
}
