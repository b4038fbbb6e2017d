// One execution of a built kernel: every argument set, the launch, the
// reads of the written arguments, and the event-profiled times.
#include "driver/execution.h"

#include <algorithm>

namespace clgen::driver {

namespace {

// Slack allocated after every global buffer (not transferred, not counted).
constexpr uint64_t kGuardBytes = 64 * 1024;

bool is_resource_error(cl_int err) {
  return err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
         err == CL_INVALID_BUFFER_SIZE;
}

bool is_launch_error(cl_int err) {
  return err == CL_INVALID_WORK_GROUP_SIZE || err == CL_INVALID_WORK_ITEM_SIZE || err == CL_INVALID_GLOBAL_WORK_SIZE ||
         err == CL_INVALID_WORK_DIMENSION || err == CL_INVALID_GLOBAL_OFFSET;
}

// Releases what a single execution created.
struct ExecResources {
  std::vector<cl_mem> buffers;
  std::vector<cl_event> events;
  std::vector<cl_sampler> samplers;
  ~ExecResources() {
    for (cl_sampler s : samplers)
      if (s) clReleaseSampler(s);
    for (cl_event e : events)
      if (e) clReleaseEvent(e);
    for (cl_mem m : buffers)
      if (m) clReleaseMemObject(m);
  }
};

uint64_t event_ns(cl_event e) {
  cl_ulong start = 0, end = 0;
  if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) != CL_SUCCESS ||
      clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) != CL_SUCCESS)
    return 0;
  return end > start ? end - start : 0;
}

// One execution: inputs in, kernel, outputs out, all with events. Each step
// returns false with `failure` set (and `poisoned` when the context may be
// broken); what the execution created is released when it ends.
class Execution {
 public:
  Execution(DeviceContext& dc, cl_kernel kernel, const std::vector<ArgInfo>& args,
            const std::vector<ArgPayload>& payload, ExecOutput& out, Failure& failure, bool& poisoned)
      : dc_(dc),
        kernel_(kernel),
        args_(args),
        payload_(payload),
        out_(out),
        failure_(failure),
        poisoned_(poisoned),
        mems_(args.size(), nullptr) {
    out_ = ExecOutput();
    out_.outputs.resize(args.size());
  }

  // Every argument: buffers and images created and written, then set.
  bool set_arguments() {
    for (size_t i = 0; i < args_.size(); ++i) {
      const ArgInfo& a = args_[i];
      bool ok;
      if (a.is_pointer && a.address_space == AddressSpace::kLocal) ok = set_arg(i, payload_[i].local_bytes, nullptr);
      else if (a.sampler) ok = set_sampler(i);
      else if (a.image) ok = set_image(i);
      else if (a.is_pointer) ok = set_buffer(i);
      else ok = set_arg(i, payload_[i].data.size(), payload_[i].data.data());
      if (!ok) return false;
    }
    return true;
  }

  bool launch(const std::vector<size_t>& global, const std::vector<size_t>& local) {
    cl_event kev = nullptr;
    cl_int err = clEnqueueNDRangeKernel(dc_.queue, kernel_, static_cast<cl_uint>(global.size()), nullptr, global.data(),
                                        local.data(), 0, nullptr, &kev);
    if (err != CL_SUCCESS) {
      clFinish(dc_.queue);
      if (is_launch_error(err)) {
        failure_ = {Outcome::kInvalidLaunchParameters, "clEnqueueNDRangeKernel: " + cl_error_name(err)};
        return false;
      }
      if (err == CL_INVALID_KERNEL_ARGS) {
        failure_ = {Outcome::kUnsupportedArguments, "clEnqueueNDRangeKernel: " + cl_error_name(err)};
        return false;
      }
      return fail_enqueue("clEnqueueNDRangeKernel", err);
    }
    res_.events.push_back(kev);
    kernel_event_ = kev;
    return true;
  }

  // Enqueues the reads of every written argument.
  bool read_outputs() {
    for (size_t i = 0; i < args_.size(); ++i) {
      if (!mems_[i] || !args_[i].writes) continue;
      std::vector<uint8_t>& output = out_.outputs[i];
      output.resize(payload_[i].data.size());
      cl_event ev = nullptr;
      cl_int err;
      if (args_[i].image) {
        const size_t origin[3] = {0, 0, 0}, region[3] = {payload_[i].image_width, payload_[i].image_height, 1};
        err = clEnqueueReadImage(dc_.queue, mems_[i], CL_FALSE, origin, region, 0, 0, output.data(), 0, nullptr, &ev);
        if (err != CL_SUCCESS) return fail_enqueue("clEnqueueReadImage", err);
      } else {
        err = clEnqueueReadBuffer(dc_.queue, mems_[i], CL_FALSE, 0, output.size(), output.data(), 0, nullptr, &ev);
        if (err != CL_SUCCESS) return fail_enqueue("clEnqueueReadBuffer", err);
      }
      res_.events.push_back(ev);
      transfers_.push_back(ev);
      out_.bytes += output.size();
    }
    return true;
  }

  // Waits for the queue, then takes the kernel's and the transfers' times.
  bool complete() {
    cl_int err = clFinish(dc_.queue);
    if (err != CL_SUCCESS) {
      failure_ = {Outcome::kCrash, "kernel execution failed: clFinish: " + cl_error_name(err)};
      poisoned_ = true;
      return false;
    }
    cl_int status = CL_COMPLETE;
    clGetEventInfo(kernel_event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    if (status < 0) {
      failure_ = {Outcome::kCrash, "kernel execution failed: " + cl_error_name(status)};
      poisoned_ = true;
      return false;
    }
    out_.kernel_ns = event_ns(kernel_event_);
    for (cl_event e : transfers_) out_.transfer_ns += event_ns(e);
    return true;
  }

 private:
  bool fail_enqueue(const char* what, cl_int e) {
    if (is_resource_error(e)) {
      failure_ = {Outcome::kOutOfResources, std::string(what) + ": " + cl_error_name(e)};
    } else {
      failure_ = {Outcome::kCrash, std::string(what) + ": " + cl_error_name(e)};
      poisoned_ = true;
    }
    return false;
  }

  bool set_arg(size_t i, size_t size, const void* value) {
    cl_int err = clSetKernelArg(kernel_, static_cast<cl_uint>(i), size, value);
    if (err == CL_SUCCESS) return true;
    failure_ = {Outcome::kUnsupportedArguments, "clSetKernelArg(" + args_[i].name + "): " + cl_error_name(err)};
    return false;
  }

  bool set_sampler(size_t i) {
    cl_int err;
    cl_sampler sampler = clCreateSampler(dc_.context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    if (err != CL_SUCCESS) {
      failure_ = {Outcome::kUnsupportedArguments, "clCreateSampler(" + args_[i].name + "): " + cl_error_name(err)};
      return false;
    }
    res_.samplers.push_back(sampler);
    return set_arg(i, sizeof(cl_sampler), &sampler);
  }

  bool set_image(size_t i) {
    const ArgInfo& a = args_[i];
    const ArgPayload& p = payload_[i];
    const cl_image_format format{CL_RGBA, a.kind == ScalarKind::kFloat    ? cl_channel_type(CL_FLOAT)
                                          : a.kind == ScalarKind::kSigned ? cl_channel_type(CL_SIGNED_INT32)
                                                                          : cl_channel_type(CL_UNSIGNED_INT32)};
    cl_image_desc desc{};
    desc.image_type = a.image_shape == ImageShape::k3d        ? CL_MEM_OBJECT_IMAGE3D
                      : a.image_shape == ImageShape::k2dArray ? CL_MEM_OBJECT_IMAGE2D_ARRAY
                                                              : CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = p.image_width;
    desc.image_height = p.image_height;
    desc.image_depth = 1;       // a 3-D image one texel deep
    desc.image_array_size = 1;  // an array of one image
    cl_int err;
    mems_[i] = clCreateImage(dc_.context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
    if (err == CL_INVALID_OPERATION || err == CL_IMAGE_FORMAT_NOT_SUPPORTED || err == CL_INVALID_IMAGE_SIZE) {
      failure_ = {Outcome::kUnsupportedArguments, "clCreateImage(" + a.name + "): " + cl_error_name(err)};
      return false;
    }
    if (err != CL_SUCCESS) return fail_enqueue("clCreateImage", err);
    res_.buffers.push_back(mems_[i]);
    // Written whole, zeros when never read, so outputs are deterministic.
    const size_t origin[3] = {0, 0, 0}, region[3] = {p.image_width, p.image_height, 1};
    cl_event ev = nullptr;
    err = clEnqueueWriteImage(dc_.queue, mems_[i], CL_FALSE, origin, region, 0, 0, p.data.data(), 0, nullptr, &ev);
    if (err != CL_SUCCESS) return fail_enqueue("clEnqueueWriteImage", err);
    res_.events.push_back(ev);
    if (a.reads) {
      transfers_.push_back(ev);
      out_.bytes += p.data.size();
    }
    return set_arg(i, sizeof(cl_mem), &mems_[i]);
  }

  bool set_buffer(size_t i) {
    const ArgInfo& a = args_[i];
    const auto& data = payload_[i].data;
    if (data.size() > dc_.max_alloc) {
      failure_ = {Outcome::kOutOfResources, "argument '" + a.name + "' needs " + std::to_string(data.size()) +
                                                " bytes, above the device's maximum allocation"};
      return false;
    }
    // A zeroed guard band after each buffer absorbs small overruns, so a
    // kernel writing just past its end does not corrupt the (host-memory)
    // runtime of a CPU device and crash a later, innocent kernel.
    const size_t guard = std::min<uint64_t>(kGuardBytes, dc_.max_alloc - data.size());
    cl_int err;
    mems_[i] = clCreateBuffer(dc_.context, CL_MEM_READ_WRITE, data.size() + guard, nullptr, &err);
    if (err != CL_SUCCESS) return fail_enqueue("clCreateBuffer", err);
    res_.buffers.push_back(mems_[i]);
    const cl_uchar zero = 0;
    cl_event ev = nullptr;
    if (guard > 0) {
      err = clEnqueueFillBuffer(dc_.queue, mems_[i], &zero, 1, data.size(), guard, 0, nullptr, &ev);
      if (err != CL_SUCCESS) return fail_enqueue("clEnqueueFillBuffer", err);
      res_.events.push_back(ev);
      ev = nullptr;
    }
    if (a.reads) {
      err = clEnqueueWriteBuffer(dc_.queue, mems_[i], CL_FALSE, 0, data.size(), data.data(), 0, nullptr, &ev);
      if (err != CL_SUCCESS) return fail_enqueue("clEnqueueWriteBuffer", err);
      res_.events.push_back(ev);
      transfers_.push_back(ev);
      out_.bytes += data.size();
    } else {
      // Never read: not transferred, but zeroed so outputs are deterministic.
      err = clEnqueueFillBuffer(dc_.queue, mems_[i], &zero, 1, 0, data.size(), 0, nullptr, &ev);
      if (err != CL_SUCCESS) return fail_enqueue("clEnqueueFillBuffer", err);
      res_.events.push_back(ev);
    }
    return set_arg(i, sizeof(cl_mem), &mems_[i]);
  }

  DeviceContext& dc_;
  cl_kernel kernel_;
  const std::vector<ArgInfo>& args_;
  const std::vector<ArgPayload>& payload_;
  ExecOutput& out_;
  Failure& failure_;
  bool& poisoned_;
  ExecResources res_;
  std::vector<cl_mem> mems_;         // per argument; null where none was created
  std::vector<cl_event> transfers_;  // timed as transfers
  cl_event kernel_event_ = nullptr;
};

}  // namespace

bool execute_kernel(DeviceContext& dc, cl_kernel kernel, const std::vector<ArgInfo>& args,
                    const std::vector<ArgPayload>& payload, const std::vector<size_t>& global,
                    const std::vector<size_t>& local, ExecOutput& out, Failure& failure, bool& poisoned) {
  Execution run(dc, kernel, args, payload, out, failure, poisoned);
  return run.set_arguments() && run.launch(global, local) && run.read_outputs() && run.complete();
}

}  // namespace clgen::driver
