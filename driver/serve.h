// The worker's side of the protocol: serves drive, list and device requests
// from the parent over two pipes. Runs only in clgen-worker, which links
// OpenCL and never Clang (see docs/DRIVER.md, "Why a separate worker binary").
#pragma once

namespace clgen::driver {

// Serves requests on (in_fd, out_fd) until the stream ends or an "exit"
// request arrives; exits early (status 3) after an execution error that may
// have corrupted the OpenCL context. Returns the process exit status.
//
// Requests (JSON objects with "op"): ping, exit, drive {job}, list {source,
// build_options, platform_index, device_index}, devices. Answers:
// {"ok": true, "result": ...} or {"ok": false, "error": ..., "code": ...},
// with "exiting": true when the worker exits after answering.
int run_worker(int in_fd, int out_fd);

}  // namespace clgen::driver
