// libevent's event-config.h defines _GNU_SOURCE, which would change glibc's fd_set from the one every other
// module sees (clang then refuses the two definitions); take the system headers first, with default features.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <stdint.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <event2/bufferevent.h>
