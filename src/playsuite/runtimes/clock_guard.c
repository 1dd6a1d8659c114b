/*
 * The native runtime's clock guard: preloaded in front of libfaketime, it makes every clock read
 * of a stopped-and-resumed game consistent.
 *
 * libfaketime 0.9.10 (Debian's) can take its offset from a file it re-reads on every call
 * (FAKETIME_NO_CACHE), but it reads that file into buffers shared by all threads without a lock:
 * measured, two C threads calling clock_gettime() saw one read in 60 to 160 jump by the whole
 * hidden offset and back; a pygame game (nine threads) saw it every few seconds. Taken from the
 * FAKETIME environment variable instead, the same offset showed no jump. And a thread that SIGSTOP
 * catches between libfaketime's read of the real clock and its read of the offset file combines a
 * time from before the stop with the offset written for after it.
 *
 * So the runtime writes each new offset (libfaketime's syntax: "-12.5", "-12.5 x2") into a small
 * shared file (PLAYSUITE_CLOCK_STATE: a 64-bit resume count, then the text) while the game is
 * stopped, and this library hands it to libfaketime as the FAKETIME variable: the first clock call
 * after a resume sees the count changed and points the environment's FAKETIME entry at a new
 * string (one pointer store: a reader sees the old value or the new, whole). Every clock call that
 * libfaketime fakes runs under one process-wide lock, so the value never changes inside a call; a
 * signal handler that reads the clock inside a guarded call goes straight through. Timed waits
 * (pthread_cond_timedwait, sem_timedwait) convert their deadline with libfaketime's clock: they
 * take the new value first, then wait without the lock.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The shared file, written by the runtime only while every process of the game is stopped. */
struct clock_state {
  uint64_t resumes;
  char spec[56];
};

#define RING 8         /* FAKETIME strings kept: one is never reused while a reader may hold it */
#define ENTRY_SIZE 80  /* "FAKETIME=" and a spec */

static pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth; /* > 0 inside a guarded call of this thread */
static const volatile struct clock_state *state;
static uint64_t applied = UINT64_MAX;
static char ring[RING][ENTRY_SIZE];
static unsigned next_slot;

static int (*next_clock_gettime)(clockid_t, struct timespec *);
static int (*next_gettimeofday)(struct timeval *, void *);
static time_t (*next_time)(time_t *);
static int (*next_timespec_get)(struct timespec *, int);
static int (*next_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*next_sem_timedwait)(sem_t *, const struct timespec *);

static void before_fork(void) { if (!depth) pthread_mutex_lock(&guard); }
static void after_fork(void) { if (!depth) pthread_mutex_unlock(&guard); }

static void clock_guard_init(void) {
  next_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
  next_gettimeofday = dlsym(RTLD_NEXT, "gettimeofday");
  next_time = dlsym(RTLD_NEXT, "time");
  next_timespec_get = dlsym(RTLD_NEXT, "timespec_get");
  next_cond_timedwait = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
  if (next_cond_timedwait == NULL) next_cond_timedwait = dlsym(RTLD_NEXT, "pthread_cond_timedwait");
  next_sem_timedwait = dlsym(RTLD_NEXT, "sem_timedwait");
  pthread_atfork(before_fork, after_fork, after_fork);
  const char *path = getenv("PLAYSUITE_CLOCK_STATE");
  if (path == NULL || *path == '\0') return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  void *map = mmap(NULL, sizeof(struct clock_state), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map != MAP_FAILED) state = map;
}

/* Set up at the first clock call, which can come from another library's initializer before any
 * constructor of this one has run. */
static pthread_once_t ready = PTHREAD_ONCE_INIT;
#define READY() pthread_once(&ready, clock_guard_init)

__attribute__((constructor)) static void clock_guard_load(void) { READY(); }

/* Point FAKETIME at the runtime's latest offset when it changed (the guard is held). */
static void take_new_offset(void) {
  if (state == NULL) return;
  uint64_t resumes = __atomic_load_n(&state->resumes, __ATOMIC_ACQUIRE);
  if (resumes == applied) return;
  char *entry = ring[next_slot++ % RING];
  snprintf(entry, ENTRY_SIZE, "FAKETIME=%.*s", (int)sizeof(state->spec),
           (const char *)state->spec);
  for (char **env = environ; env != NULL && *env != NULL; env++) {
    if (strncmp(*env, "FAKETIME=", 9) == 0) {
      __atomic_store_n(env, entry, __ATOMIC_RELEASE);
      applied = resumes;
      return;
    }
  }
  /* The game removed FAKETIME: leave the environment alone (libfaketime keeps its last value). */
  applied = resumes;
}

/* Run CALL under the guard, with the latest offset. */
#define GUARDED(CALL)             \
  do {                            \
    READY();                      \
    if (depth) {                  \
      CALL;                       \
      break;                      \
    }                             \
    depth++;                      \
    pthread_mutex_lock(&guard);   \
    take_new_offset();            \
    CALL;                         \
    pthread_mutex_unlock(&guard); \
    depth--;                      \
  } while (0)

/* Before a timed wait: the latest offset, taken under the guard (the wait itself is not). */
static void before_wait(void) {
  READY();
  if (depth) return;
  pthread_mutex_lock(&guard);
  take_new_offset();
  pthread_mutex_unlock(&guard);
}

int clock_gettime(clockid_t clock, struct timespec *tp) {
  int result;
  GUARDED(result = next_clock_gettime(clock, tp));
  return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
  int result;
  GUARDED(result = next_gettimeofday(tv, tz));
  return result;
}

time_t time(time_t *out) {
  time_t result;
  GUARDED(result = next_time(NULL));
  if (out != NULL) *out = result;
  return result;
}

int timespec_get(struct timespec *ts, int base) {
  int result;
  GUARDED(result = next_timespec_get(ts, base));
  return result;
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime) {
  before_wait();
  return next_cond_timedwait(cond, mutex, abstime);
}

int sem_timedwait(sem_t *sem, const struct timespec *abstime) {
  before_wait();
  return next_sem_timedwait(sem, abstime);
}
