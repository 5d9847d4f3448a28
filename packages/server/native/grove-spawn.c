// Starts a child without copying the parent's address space: posix_spawn (glibc: clone with
// CLONE_VM | CLONE_VFORK) instead of the fork libuv uses for child_process.spawn. On the 2-core
// guests Grove is measured on, a fork costs ~8 ms of CPU before the child has done anything, more
// than most git commands Grove runs (docs/decisions/2026-12-07-git-without-fork.md).
//
// spawn(file, argv, envp, cwd, fds, setsid) -> pid. `fds[i]` becomes the child's descriptor i;
// every signal the child starts with is at its default and unblocked (Node ignores SIGPIPE, and an
// ignored signal would survive exec). wait(pid, cb) calls cb(exitCode, signal) once the child has
// ended: a thread blocks in waitpid for that pid alone, since libuv reaps only the children it
// started. pipe() -> [read, write], both close-on-exec.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NODE_GYP_MODULE_NAME
#define NODE_GYP_MODULE_NAME grove_spawn
#endif

#define CHECK(call)                                                       \
  do {                                                                    \
    if ((call) != napi_ok) {                                              \
      napi_throw_error(env, "ERR_GROVE_SPAWN", "grove-spawn: bad argument"); \
      return NULL;                                                        \
    }                                                                     \
  } while (0)

static void free_strings(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++) free(*p);
  free(list);
}

// A JS string as a C string; NULL (and a pending error) when it holds a NUL byte, which C would cut short.
static char *c_string(napi_env env, napi_value v) {
  size_t len;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) return NULL;
  char *s = malloc(len + 1);
  if (!s) return NULL;
  napi_get_value_string_utf8(env, v, s, len + 1, &len);
  if (strlen(s) != len) {
    free(s);
    napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", "grove-spawn: a string holds a NUL byte");
    return NULL;
  }
  return s;
}

static char **c_strings(napi_env env, napi_value arr) {
  uint32_t n;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
  char **out = calloc(n + 1, sizeof(char *));
  if (!out) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    if (napi_get_element(env, arr, i, &v) != napi_ok || !(out[i] = c_string(env, v))) {
      free_strings(out);
      return NULL;
    }
  }
  return out;
}

static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value a[6];
  CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
  if (argc < 6) {
    napi_throw_type_error(env, "ERR_GROVE_SPAWN", "grove-spawn: spawn(file, argv, envp, cwd, fds, setsid)");
    return NULL;
  }
  char *file = c_string(env, a[0]);
  char *cwd = file ? c_string(env, a[3]) : NULL;
  char **argv = cwd ? c_strings(env, a[1]) : NULL;
  char **envp = argv ? c_strings(env, a[2]) : NULL;
  uint32_t nfd = 0;
  bool setsid = false;
  if (!envp || napi_get_array_length(env, a[4], &nfd) != napi_ok || napi_get_value_bool(env, a[5], &setsid) != napi_ok) {
    free(file), free(cwd), free_strings(argv), free_strings(envp);
    // A wrong type (a number for a string, no array, no boolean) fails without an exception of its
    // own: the caller gets one, never an undefined pid.
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending)
      napi_throw_type_error(env, "ERR_GROVE_SPAWN",
                            "grove-spawn: spawn(file: string, argv: string[], envp: string[], cwd: string, fds: number[], setsid: boolean)");
    return NULL;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  int rc = posix_spawn_file_actions_addchdir_np(&actions, cwd);
  for (uint32_t i = 0; rc == 0 && i < nfd; i++) {
    napi_value v;
    int32_t fd = -1;
    if (napi_get_element(env, a[4], i, &v) != napi_ok || napi_get_value_int32(env, v, &fd) != napi_ok || fd < 0) rc = EBADF;
    // glibc clears close-on-exec when a descriptor is "duplicated" onto its own number (2.29+).
    else rc = posix_spawn_file_actions_adddup2(&actions, fd, (int)i);
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
  if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (setsid ? POSIX_SPAWN_SETSID : 0));
  pid_t pid = -1;
  if (rc == 0) rc = posix_spawn(&pid, file, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  free(file), free(cwd), free_strings(argv), free_strings(envp);
  if (rc != 0) {
    napi_value err, code, msg;
    napi_create_string_utf8(env, strerror(rc), NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_create_int32(env, rc, &code);
    napi_set_named_property(env, err, "errno", code);
    napi_throw(env, err);
    return NULL;
  }
  napi_value r;
  CHECK(napi_create_int32(env, pid, &r));
  return r;
}

typedef struct {
  pid_t pid;
  int status;
  napi_threadsafe_function tsfn;
} waiter;

static void *wait_thread(void *p) {
  waiter *w = p;
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  w->status = status;
  napi_call_threadsafe_function(w->tsfn, w, napi_tsfn_blocking);
  return NULL;
}

static void call_js(napi_env env, napi_value cb, void *context, void *data) {
  (void)context;
  waiter *w = data;
  napi_threadsafe_function tsfn = w->tsfn;
  if (env && cb) {
    napi_value args[2], undefined;
    napi_create_int32(env, WIFEXITED(w->status) ? WEXITSTATUS(w->status) : -1, &args[0]);
    napi_create_int32(env, WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0, &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, cb, 2, args, NULL);
  }
  free(w);
  napi_release_threadsafe_function(tsfn, napi_tsfn_release);
}

static napi_value Wait(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value a[2], name;
  int32_t pid;
  CHECK(napi_get_cb_info(env, info, &argc, a, NULL, NULL));
  CHECK(napi_get_value_int32(env, a[0], &pid));
  waiter *w = calloc(1, sizeof *w);
  if (!w) {
    napi_throw_error(env, "ERR_GROVE_SPAWN", "grove-spawn: out of memory");
    return NULL;
  }
  w->pid = pid;
  napi_create_string_utf8(env, "grove-spawn-wait", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, a[1], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &w->tsfn) != napi_ok) {
    free(w);
    napi_throw_error(env, "ERR_GROVE_SPAWN", "grove-spawn: no thread-safe function");
    return NULL;
  }
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int rc = pthread_create(&thread, &attr, wait_thread, w);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    napi_release_threadsafe_function(w->tsfn, napi_tsfn_abort);
    free(w);
    napi_throw_error(env, "ERR_GROVE_SPAWN", strerror(rc));
  }
  return NULL;
}

static napi_value Pipe(napi_env env, napi_callback_info info) {
  (void)info;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) {
    napi_throw_error(env, "ERR_GROVE_SPAWN", strerror(errno));
    return NULL;
  }
  napi_value r, v;
  CHECK(napi_create_array_with_length(env, 2, &r));
  for (int i = 0; i < 2; i++) {
    CHECK(napi_create_int32(env, fds[i], &v));
    CHECK(napi_set_element(env, r, i, v));
  }
  return r;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"spawn", NULL, Spawn, NULL, NULL, NULL, napi_default, NULL},
      {"wait", NULL, Wait, NULL, NULL, NULL, napi_default, NULL},
      {"pipe", NULL, Pipe, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, 3, props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
