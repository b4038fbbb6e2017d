// OpenCL execution for the worker: contexts, program cache, buffers, the
// four-run dynamic check and event-profiled repetitions.
#include "driver/executor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "driver/opencl.h"
#include "driver/payload.h"
#include "support/sha256.h"

namespace clgen::driver {

namespace {

// An outcome other than pass, with its reason.
struct Failure {
  Outcome outcome;
  std::string message;
};

// Slack allocated after every global buffer (not transferred, not counted).
constexpr uint64_t kGuardBytes = 64 * 1024;
constexpr const char* kOutputsEqualInputs = "outputs equal inputs";

struct DeviceContext {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  uint64_t local_mem = 0;
  uint64_t max_work_group = 0;
  uint64_t max_alloc = 0;
  uint64_t global_mem = 0;
  std::vector<uint64_t> max_items;
};

template <typename T>
T device_info(cl_device_id d, cl_device_info what) {
  T value{};
  clGetDeviceInfo(d, what, sizeof(T), &value, nullptr);
  return value;
}

bool is_resource_error(cl_int err) {
  return err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
         err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
}

bool is_launch_error(cl_int err) {
  return err == CL_INVALID_WORK_GROUP_SIZE || err == CL_INVALID_WORK_ITEM_SIZE ||
         err == CL_INVALID_GLOBAL_WORK_SIZE || err == CL_INVALID_WORK_DIMENSION ||
         err == CL_INVALID_GLOBAL_OFFSET;
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
  if (clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) !=
          CL_SUCCESS)
    return 0;
  return end > start ? end - start : 0;
}

struct ExecOutput {
  std::vector<std::vector<uint8_t>> outputs;  // per argument; empty unless written
  uint64_t transfer_ns = 0;
  uint64_t kernel_ns = 0;
  uint64_t bytes = 0;
};

}  // namespace

struct Executor::Impl {
  std::map<std::pair<int, int>, DeviceContext> devices;
  // (device, source sha256, options) -> built program; cleared when large.
  std::map<std::tuple<cl_device_id, std::string, std::string>, cl_program> programs;
  bool poisoned = false;

  ~Impl() {
    for (auto& [key, p] : programs) clReleaseProgram(p);
    for (auto& [key, d] : devices) {
      clReleaseCommandQueue(d.queue);
      clReleaseContext(d.context);
    }
  }

  Expected<DeviceContext*> device(int platform_index, int device_index) {
    auto key = std::make_pair(platform_index, device_index);
    auto it = devices.find(key);
    if (it != devices.end()) return &it->second;
    std::string where = "device " + std::to_string(platform_index) + "." + std::to_string(device_index);
    cl_uint nplatforms = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &nplatforms);
    if (err != CL_SUCCESS || platform_index < 0 || static_cast<cl_uint>(platform_index) >= nplatforms)
      return not_found(where + ": no such platform");
    std::vector<cl_platform_id> platforms(nplatforms);
    clGetPlatformIDs(nplatforms, platforms.data(), nullptr);
    cl_uint ndevices = 0;
    err = clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL, 0, nullptr, &ndevices);
    if (err != CL_SUCCESS || device_index < 0 || static_cast<cl_uint>(device_index) >= ndevices)
      return not_found(where + ": no such device");
    std::vector<cl_device_id> ids(ndevices);
    clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL, ndevices, ids.data(), nullptr);
    DeviceContext dc;
    dc.device = ids[device_index];
    dc.context = clCreateContext(nullptr, 1, &dc.device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return unavailable(where + ": clCreateContext: " + cl_error_name(err));
    dc.queue = clCreateCommandQueue(dc.context, dc.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
      clReleaseContext(dc.context);
      return unavailable(where + ": clCreateCommandQueue: " + cl_error_name(err));
    }
    dc.local_mem = device_info<cl_ulong>(dc.device, CL_DEVICE_LOCAL_MEM_SIZE);
    dc.max_work_group = device_info<size_t>(dc.device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    dc.max_alloc = device_info<cl_ulong>(dc.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    dc.global_mem = device_info<cl_ulong>(dc.device, CL_DEVICE_GLOBAL_MEM_SIZE);
    cl_uint dims = device_info<cl_uint>(dc.device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    std::vector<size_t> items(dims);
    clGetDeviceInfo(dc.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), items.data(),
                    nullptr);
    dc.max_items.assign(items.begin(), items.end());
    return &devices.emplace(key, dc).first->second;
  }

  // The built program, or a Failure with the build log.
  cl_program program(DeviceContext& dc, const std::string& source, const std::string& options,
                     Failure& failure) {
    auto key = std::make_tuple(dc.device, sha256_hex(source), options);
    auto it = programs.find(key);
    if (it != programs.end()) return it->second;
    if (programs.size() >= 64) {
      for (auto& [k, p] : programs) clReleaseProgram(p);
      programs.clear();
    }
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int err;
    cl_program prog = clCreateProgramWithSource(dc.context, 1, &text, &length, &err);
    if (err != CL_SUCCESS) {
      failure = {Outcome::kCompileError, "clCreateProgramWithSource: " + cl_error_name(err)};
      return nullptr;
    }
    err = clBuildProgram(prog, 1, &dc.device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t log_size = 0;
      clGetProgramBuildInfo(prog, dc.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
      std::string log(log_size, '\0');
      clGetProgramBuildInfo(prog, dc.device, CL_PROGRAM_BUILD_LOG, log_size, log.data(), nullptr);
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      if (log.size() > 2000) log.resize(2000);
      clReleaseProgram(prog);
      // Any failed build means the kernel does not compile for this device.
      // Errors other than a build failure are the compiler itself failing
      // (NVIDIA's returns -9999 on kernels it cannot handle, e.g. some printf
      // uses): still a compile error, but the context may be left broken, so
      // this worker ends after answering and the next source gets a fresh one.
      if (err != CL_BUILD_PROGRAM_FAILURE && err != CL_INVALID_BUILD_OPTIONS) poisoned = true;
      failure = {Outcome::kCompileError,
                 "clBuildProgram: " + cl_error_name(err) + (log.empty() ? "" : ": " + log)};
      return nullptr;
    }
    programs.emplace(key, prog);
    return prog;
  }

  // One execution: inputs in, kernel, outputs out, all with events.
  bool execute(DeviceContext& dc, cl_kernel kernel, const std::vector<ArgInfo>& args,
               const std::vector<ArgPayload>& payload, const std::vector<size_t>& global,
               const std::vector<size_t>& local, ExecOutput& out, Failure& failure) {
    ExecResources res;
    out = ExecOutput();
    out.outputs.resize(args.size());
    std::vector<cl_mem> mems(args.size(), nullptr);
    std::vector<cl_event> transfers;
    cl_int err;
    auto fail_enqueue = [&](const char* what, cl_int e) {
      if (is_resource_error(e)) {
        failure = {Outcome::kOutOfResources, std::string(what) + ": " + cl_error_name(e)};
      } else {
        failure = {Outcome::kCrash, std::string(what) + ": " + cl_error_name(e)};
        poisoned = true;
      }
      return false;
    };
    for (size_t i = 0; i < args.size(); ++i) {
      const ArgInfo& a = args[i];
      if (a.is_pointer && a.address_space == AddressSpace::kLocal) {
        err = clSetKernelArg(kernel, static_cast<cl_uint>(i), payload[i].local_bytes, nullptr);
      } else if (a.sampler) {
        cl_sampler sampler = clCreateSampler(dc.context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
        if (err != CL_SUCCESS) {
          failure = {Outcome::kUnsupportedArguments, "clCreateSampler(" + a.name + "): " + cl_error_name(err)};
          return false;
        }
        res.samplers.push_back(sampler);
        err = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_sampler), &sampler);
      } else if (a.image) {
        const ArgPayload& p = payload[i];
        const cl_image_format format{CL_RGBA, a.kind == ScalarKind::kFloat    ? cl_channel_type(CL_FLOAT)
                                              : a.kind == ScalarKind::kSigned ? cl_channel_type(CL_SIGNED_INT32)
                                                                              : cl_channel_type(CL_UNSIGNED_INT32)};
        cl_image_desc desc{};
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = p.image_width;
        desc.image_height = p.image_height;
        mems[i] = clCreateImage(dc.context, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
        if (err == CL_INVALID_OPERATION || err == CL_IMAGE_FORMAT_NOT_SUPPORTED || err == CL_INVALID_IMAGE_SIZE) {
          failure = {Outcome::kUnsupportedArguments, "clCreateImage(" + a.name + "): " + cl_error_name(err)};
          return false;
        }
        if (err != CL_SUCCESS) return fail_enqueue("clCreateImage", err);
        res.buffers.push_back(mems[i]);
        // Written whole, zeros when never read, so outputs are deterministic.
        const size_t origin[3] = {0, 0, 0}, region[3] = {p.image_width, p.image_height, 1};
        cl_event ev = nullptr;
        err = clEnqueueWriteImage(dc.queue, mems[i], CL_FALSE, origin, region, 0, 0, p.data.data(), 0, nullptr, &ev);
        if (err != CL_SUCCESS) return fail_enqueue("clEnqueueWriteImage", err);
        res.events.push_back(ev);
        if (a.reads) {
          transfers.push_back(ev);
          out.bytes += p.data.size();
        }
        err = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mems[i]);
      } else if (a.is_pointer) {
        const auto& data = payload[i].data;
        if (data.size() > dc.max_alloc) {
          failure = {Outcome::kOutOfResources,
                     "argument '" + a.name + "' needs " + std::to_string(data.size()) +
                         " bytes, above the device's maximum allocation"};
          return false;
        }
        // A zeroed guard band after each buffer absorbs small overruns, so a
        // kernel writing just past its end does not corrupt the (host-memory)
        // runtime of a CPU device and crash a later, innocent kernel.
        const size_t guard = std::min<uint64_t>(kGuardBytes, dc.max_alloc - data.size());
        mems[i] = clCreateBuffer(dc.context, CL_MEM_READ_WRITE, data.size() + guard, nullptr, &err);
        if (err != CL_SUCCESS) return fail_enqueue("clCreateBuffer", err);
        res.buffers.push_back(mems[i]);
        cl_event ev = nullptr;
        if (guard > 0) {
          const cl_uchar zero = 0;
          err = clEnqueueFillBuffer(dc.queue, mems[i], &zero, 1, data.size(), guard, 0, nullptr, &ev);
          if (err != CL_SUCCESS) return fail_enqueue("clEnqueueFillBuffer", err);
          res.events.push_back(ev);
          ev = nullptr;
        }
        if (a.reads) {
          err = clEnqueueWriteBuffer(dc.queue, mems[i], CL_FALSE, 0, data.size(), data.data(), 0,
                                     nullptr, &ev);
          if (err != CL_SUCCESS) return fail_enqueue("clEnqueueWriteBuffer", err);
          res.events.push_back(ev);
          transfers.push_back(ev);
          out.bytes += data.size();
        } else {
          // Never read: not transferred, but zeroed so outputs are deterministic.
          const cl_uchar zero = 0;
          err = clEnqueueFillBuffer(dc.queue, mems[i], &zero, 1, 0, data.size(), 0, nullptr, &ev);
          if (err != CL_SUCCESS) return fail_enqueue("clEnqueueFillBuffer", err);
          res.events.push_back(ev);
        }
        err = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mems[i]);
      } else {
        err = clSetKernelArg(kernel, static_cast<cl_uint>(i), payload[i].data.size(),
                             payload[i].data.data());
      }
      if (err != CL_SUCCESS) {
        failure = {Outcome::kUnsupportedArguments,
                   "clSetKernelArg(" + a.name + "): " + cl_error_name(err)};
        return false;
      }
    }
    cl_event kev = nullptr;
    err = clEnqueueNDRangeKernel(dc.queue, kernel, static_cast<cl_uint>(global.size()), nullptr,
                                 global.data(), local.data(), 0, nullptr, &kev);
    if (err != CL_SUCCESS) {
      clFinish(dc.queue);
      if (is_launch_error(err)) {
        failure = {Outcome::kInvalidLaunchParameters, "clEnqueueNDRangeKernel: " + cl_error_name(err)};
        return false;
      }
      if (err == CL_INVALID_KERNEL_ARGS) {
        failure = {Outcome::kUnsupportedArguments, "clEnqueueNDRangeKernel: " + cl_error_name(err)};
        return false;
      }
      return fail_enqueue("clEnqueueNDRangeKernel", err);
    }
    res.events.push_back(kev);
    for (size_t i = 0; i < args.size(); ++i) {
      if (!mems[i] || !args[i].writes) continue;
      out.outputs[i].resize(payload[i].data.size());
      cl_event ev = nullptr;
      if (args[i].image) {
        const size_t origin[3] = {0, 0, 0}, region[3] = {payload[i].image_width, payload[i].image_height, 1};
        err = clEnqueueReadImage(dc.queue, mems[i], CL_FALSE, origin, region, 0, 0, out.outputs[i].data(), 0, nullptr,
                                 &ev);
        if (err != CL_SUCCESS) return fail_enqueue("clEnqueueReadImage", err);
      } else {
        err = clEnqueueReadBuffer(dc.queue, mems[i], CL_FALSE, 0, out.outputs[i].size(), out.outputs[i].data(), 0,
                                  nullptr, &ev);
        if (err != CL_SUCCESS) return fail_enqueue("clEnqueueReadBuffer", err);
      }
      res.events.push_back(ev);
      transfers.push_back(ev);
      out.bytes += out.outputs[i].size();
    }
    err = clFinish(dc.queue);
    if (err != CL_SUCCESS) {
      failure = {Outcome::kCrash, "kernel execution failed: clFinish: " + cl_error_name(err)};
      poisoned = true;
      return false;
    }
    cl_int status = CL_COMPLETE;
    clGetEventInfo(kev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    if (status < 0) {
      failure = {Outcome::kCrash, "kernel execution failed: " + cl_error_name(status)};
      poisoned = true;
      return false;
    }
    out.kernel_ns = event_ns(kev);
    for (cl_event e : transfers) out.transfer_ns += event_ns(e);
    return true;
  }
};

Executor::Executor() : impl_(std::make_unique<Impl>()) {}
Executor::~Executor() = default;
bool Executor::poisoned() const { return impl_->poisoned; }

namespace {

// Describes a built kernel's arguments from -cl-kernel-arg-info.
std::vector<ArgInfo> device_arg_info(cl_kernel kernel) {
  cl_uint nargs = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  std::vector<ArgInfo> args(nargs);
  for (cl_uint i = 0; i < nargs; ++i) {
    ArgInfo& a = args[i];
    auto text = [&](cl_kernel_arg_info what) {
      size_t n = 0;
      clGetKernelArgInfo(kernel, i, what, 0, nullptr, &n);
      std::string s(n, '\0');
      clGetKernelArgInfo(kernel, i, what, n, s.data(), nullptr);
      while (!s.empty() && s.back() == '\0') s.pop_back();
      return s;
    };
    a.name = text(CL_KERNEL_ARG_NAME);
    a.type = text(CL_KERNEL_ARG_TYPE_NAME);
    cl_kernel_arg_address_qualifier aq = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr);
    cl_kernel_arg_type_qualifier tq = 0;
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, nullptr);
    std::string base = a.type;
    while (!base.empty() && (base.back() == '*' || base.back() == ' ')) {
      if (base.back() == '*') a.is_pointer = true;
      base.pop_back();
    }
    a.address_space = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? AddressSpace::kGlobal
                      : aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? AddressSpace::kConstant
                      : aq == CL_KERNEL_ARG_ADDRESS_LOCAL    ? AddressSpace::kLocal
                                                             : AddressSpace::kPrivate;
    a.is_const = (tq & CL_KERNEL_ARG_TYPE_CONST) || a.address_space == AddressSpace::kConstant;
    if (base.find("image") != std::string::npos) {
      a.supported = false;
      a.unsupported_reason = "image";
    } else if (base == "sampler_t") {
      a.supported = false;
      a.unsupported_reason = "sampler";
    } else if (base.find("pipe") != std::string::npos) {
      a.supported = false;
      a.unsupported_reason = "pipe";
    } else if (!parse_element_type(base, a.kind, a.element_size, a.vector_width)) {
      a.supported = false;
      a.unsupported_reason = a.is_pointer ? "struct or unknown pointee type '" + base + "'"
                                          : "unsupported type '" + base + "'";
    }
    if (a.is_pointer && a.address_space != AddressSpace::kLocal) {
      a.reads = true;
      a.writes = !a.is_const;
    }
  }
  return args;
}

uint64_t product(const std::vector<uint64_t>& v) {
  uint64_t p = 1;
  for (uint64_t x : v) p *= x;
  return p;
}

}  // namespace

Expected<std::vector<KernelSignature>> Executor::list_kernels(const std::string& source,
                                                              const std::string& build_options,
                                                              int platform_index, int device_index) {
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(platform_index, device_index));
  Failure failure;
  cl_program prog = impl_->program(*dc, source, build_options + " -cl-kernel-arg-info", failure);
  if (!prog) return parse_error(failure.message);
  cl_uint n = 0;
  clCreateKernelsInProgram(prog, 0, nullptr, &n);
  std::vector<cl_kernel> kernels(n);
  clCreateKernelsInProgram(prog, n, kernels.data(), nullptr);
  std::vector<KernelSignature> out;
  for (cl_kernel k : kernels) {
    KernelSignature sig;
    size_t len = 0;
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &len);
    std::string name(len, '\0');
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, len, name.data(), nullptr);
    while (!name.empty() && name.back() == '\0') name.pop_back();
    sig.name = name;
    sig.args = device_arg_info(k);
    out.push_back(std::move(sig));
    clReleaseKernel(k);
  }
  return out;
}

Status Executor::prepare(int platform_index, int device_index) {
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(platform_index, device_index));
  Failure failure;
  if (!impl_->program(*dc, "kernel void clgen_prepare(global int* a) { a[0] = 1; }", "", failure))
    return unavailable("the device compiler fails on a trivial kernel: " + failure.message);
  return ok_status();
}

Expected<DriveResult> Executor::drive(const DriveJob& job) {
  if (job.global_size.empty() || job.global_size.size() > 3)
    return invalid_argument("global size needs 1 to 3 dimensions");
  if (!job.local_size.empty() && job.local_size.size() != job.global_size.size())
    return invalid_argument("local size " + format_size(job.local_size) +
                            " has a different number of dimensions than global size " +
                            format_size(job.global_size));
  ASSIGN_OR_RETURN(DeviceContext * dc, impl_->device(job.platform_index, job.device_index));
  DriveResult result;
  auto finish = [&](Outcome o, std::string message) {
    result.outcome = o;
    result.message = std::move(message);
    return result;
  };

  Failure failure;
  std::string options = job.build_options + (job.args_from_device ? " -cl-kernel-arg-info" : "");
  cl_program prog = impl_->program(*dc, job.source, options, failure);
  if (!prog) return finish(failure.outcome, failure.message);
  cl_int err;
  cl_kernel kernel = clCreateKernel(prog, job.kernel_name.c_str(), &err);
  if (err != CL_SUCCESS)
    return finish(Outcome::kCompileError,
                  "clCreateKernel(" + job.kernel_name + "): " + cl_error_name(err));
  struct KernelGuard {
    cl_kernel k;
    ~KernelGuard() { clReleaseKernel(k); }
  } guard{kernel};

  std::vector<ArgInfo> args = job.args_from_device ? device_arg_info(kernel) : job.args;
  cl_uint nargs = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  if (nargs != args.size())
    return finish(Outcome::kUnsupportedArguments,
                  "the device reports " + std::to_string(nargs) + " arguments, the analysis " +
                      std::to_string(args.size()));
  for (const auto& a : args)
    if (!a.supported)
      return finish(Outcome::kUnsupportedArguments,
                    "argument '" + a.name + "' (" + a.type + "): " + a.unsupported_reason);

  size_t wg = 0;
  cl_ulong local_mem = 0, private_mem = 0;
  clGetKernelWorkGroupInfo(kernel, dc->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
  clGetKernelWorkGroupInfo(kernel, dc->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                           &local_mem, nullptr);
  clGetKernelWorkGroupInfo(kernel, dc->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem,
                           &private_mem, nullptr);
  result.kernel_work_group_size = wg;
  result.kernel_local_mem = local_mem;
  result.kernel_private_mem = private_mem;

  // Local size: given (checked against device and kernel limits) or automatic.
  const uint64_t limit = std::min<uint64_t>(dc->max_work_group, wg ? wg : dc->max_work_group);
  size_t required[3] = {0, 0, 0};  // reqd_work_group_size, all zero when absent
  clGetKernelWorkGroupInfo(kernel, dc->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof required,
                           required, nullptr);
  if (job.local_size.empty() && required[0] != 0) {
    result.local_size.assign(required, required + job.global_size.size());
    for (size_t d = 0; d < job.global_size.size(); ++d)
      if (job.global_size[d] % result.local_size[d] != 0)
        return finish(Outcome::kInvalidLaunchParameters,
                      "the kernel requires local size " + format_size(result.local_size) +
                          ", which does not divide global size " + format_size(job.global_size));
  } else if (job.local_size.empty()) {
    result.local_size = automatic_local_size(job.global_size, limit, dc->max_items);
  } else {
    result.local_size = job.local_size;
    const auto& l = job.local_size;
    for (size_t d = 0; d < l.size(); ++d) {
      if (d < dc->max_items.size() && l[d] > dc->max_items[d])
        return finish(Outcome::kInvalidLaunchParameters,
                      "local size " + format_size(l) + " exceeds the device's maximum work-item size " +
                          std::to_string(dc->max_items[d]) + " in dimension " + std::to_string(d));
      if (job.global_size[d] % l[d] != 0)
        return finish(Outcome::kInvalidLaunchParameters,
                      "local size " + format_size(l) + " does not divide global size " +
                          format_size(job.global_size));
    }
    if (product(l) > dc->max_work_group)
      return finish(Outcome::kInvalidLaunchParameters,
                    "local size " + format_size(l) + " exceeds the device's maximum work-group size " +
                        std::to_string(dc->max_work_group));
    if (product(l) > wg)
      return finish(Outcome::kInvalidLaunchParameters,
                    "local size " + format_size(l) + " exceeds the kernel's work-group size limit " +
                        std::to_string(wg));
  }

  // Buffers above the device's limits are refused before any host memory
  // is spent on payloads.
  uint64_t total_bytes = 0;
  for (const auto& a : args) {
    if (!a.is_pointer || a.address_space == AddressSpace::kLocal) continue;
    uint64_t bytes = product(job.global_size) * static_cast<uint64_t>(a.element_stride());
    total_bytes += bytes;
    if (bytes > dc->max_alloc)
      return finish(Outcome::kOutOfResources,
                    "argument '" + a.name + "' needs " + std::to_string(bytes) +
                        " bytes, above the device's maximum allocation of " +
                        std::to_string(dc->max_alloc));
  }
  if (total_bytes > dc->global_mem)
    return finish(Outcome::kOutOfResources,
                  "buffers need " + std::to_string(total_bytes) +
                      " bytes, above the device's global memory");

  PayloadOptions popts;
  popts.global_items = product(job.global_size);
  popts.scalar_size = job.global_size[0];
  popts.local_mem_free = dc->local_mem > local_mem ? dc->local_mem - local_mem : 0;
  std::vector<ArgPayload> payload_a, payload_b;
  // Payloads A (seed) and B (seed + 1) with integer scalars `scalar`.
  auto make_pair = [&](uint64_t scalar) -> Status {
    popts.scalar_size = scalar;
    popts.seed = job.seed;
    ASSIGN_OR_RETURN(payload_a, make_payloads(args, popts));
    popts.seed = job.seed + 1;
    ASSIGN_OR_RETURN(payload_b, make_payloads(args, popts));
    return ok_status();
  };
  const bool integer_scalars = std::any_of(
      args.begin(), args.end(), [](const ArgInfo& a) { return !a.is_pointer && a.kind != ScalarKind::kFloat; });
  if (Status st = make_pair(job.global_size[0]); !st.ok()) return finish(Outcome::kOutOfResources, st.message());
  result.scalar_value = integer_scalars ? job.global_size[0] : 0;

  std::vector<size_t> global(job.global_size.begin(), job.global_size.end());
  std::vector<size_t> local(result.local_size.begin(), result.local_size.end());
  auto run = [&](const std::vector<ArgPayload>& p, ExecOutput& out) {
    return impl_->execute(*dc, kernel, args, p, global, local, out, failure);
  };
  // The 4-run dynamic check: kPass, or the outcome and message of the
  // failed check; nullopt when a run itself failed (see `failure`).
  auto check = [&]() -> std::optional<std::pair<Outcome, std::string>> {
    ExecOutput a1, b1, a2, b2;
    if (!run(payload_a, a1) || !run(payload_b, b1) || !run(payload_a, a2) || !run(payload_b, b2)) return std::nullopt;
    result.transferred_bytes = a1.bytes;
    bool any_output = false;
    bool a_same_as_input = true, b_same_as_input = true;
    bool deterministic = true, a_equals_b = true;
    for (size_t i = 0; i < args.size(); ++i) {
      if (a1.outputs[i].empty()) continue;
      any_output = true;
      const ArgInfo& arg = args[i];
      a_same_as_input &= buffers_equal(arg, a1.outputs[i], payload_a[i].data);
      b_same_as_input &= buffers_equal(arg, b1.outputs[i], payload_b[i].data);
      deterministic &= buffers_equal(arg, a1.outputs[i], a2.outputs[i]) &&
                       buffers_equal(arg, b1.outputs[i], b2.outputs[i]);
      a_equals_b &= buffers_equal(arg, a1.outputs[i], b1.outputs[i]);
    }
    if (!any_output) return std::make_pair(Outcome::kNoOutput, std::string("the kernel writes no argument"));
    if (a_same_as_input && b_same_as_input) return std::make_pair(Outcome::kNoOutput, std::string(kOutputsEqualInputs));
    if (!deterministic)
      return std::make_pair(Outcome::kNondeterministic, std::string("the same payload gave different outputs"));
    if (a_equals_b)
      return std::make_pair(Outcome::kInputInsensitive, std::string("payloads A and B gave the same outputs"));
    return std::make_pair(Outcome::kPass, std::string());
  };

  if (job.check) {
    auto verdict = check();
    if (!verdict) return finish(failure.outcome, failure.message);
    if (verdict->first == Outcome::kNoOutput && verdict->second == kOutputsEqualInputs && job.scalar_fallback &&
        integer_scalars && job.global_size[0] != 1) {
      if (Status st = make_pair(1); !st.ok()) return finish(Outcome::kOutOfResources, st.message());
      result.scalar_value = 1;
      verdict = check();
      if (!verdict) return finish(failure.outcome, failure.message);
      if (verdict->first != Outcome::kPass)
        verdict->second += " (integer scalars 1, after outputs equal inputs with the global size)";
    }
    if (verdict->first != Outcome::kPass) return finish(verdict->first, verdict->second);
  }

  for (int r = 0; r < job.warmup + job.runs; ++r) {
    ExecOutput out;
    if (!run(payload_a, out)) return finish(failure.outcome, failure.message);
    result.transferred_bytes = out.bytes;
    if (r < job.warmup) continue;
    result.transfer_ns.push_back(out.transfer_ns);
    result.kernel_ns.push_back(out.kernel_ns);
  }
  return finish(Outcome::kPass, "");
}

}  // namespace clgen::driver
