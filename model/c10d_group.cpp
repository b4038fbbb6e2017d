// Joining a c10d world: the TCP store of the rendezvous and the Gloo process
// group (NCCL's is in model/c10d_nccl.cpp). The only file, with that one, that
// includes c10d's headers. A build with neither backend compiles only the
// answers that say so.
#include "model/collectives.h"

#if CLGEN_HAVE_GLOO || CLGEN_HAVE_NCCL
#include <csignal>
#include <cstdlib>

#include <c10/util/Logging.h>
#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if CLGEN_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "model/c10d_collectives.h"
#endif

namespace clgen::model {

namespace {

#if CLGEN_HAVE_GLOO || CLGEN_HAVE_NCCL

// c10d logs each failed connection attempt and timeout on stderr, with c10's
// logging (glog in Debian's LibTorch, its own in PyTorch's). The failure also
// comes back as an exception that the caller reports in one line, so those
// logs are silenced, unless TORCH_CPP_LOG_LEVEL asks for them.
void quiet_c10d_logging() {
  if (std::getenv("TORCH_CPP_LOG_LEVEL")) return;
  constexpr int kFatal = 3;
  FLAGS_caffe2_log_level = kFatal;
#ifdef C10_USE_GLOG
  FLAGS_minloglevel = kFatal;
#endif
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The store every rank meets at: rank 0 serves it (or torchrun's agent
// does), the others connect; a world of one needs no network.
Expected<c10::intrusive_ptr<c10d::Store>> make_store(const DistributedEnv& env,
                                                     std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<c10d::Store> store;
  const std::string where = fmt::format("store at {}:{}", env.master_addr, env.master_port);
  RETURN_IF_ERROR(c10d_call("c10d", where, [&] {
    if (env.world_size == 1 && !env.agent_store) {
      store = c10::make_intrusive<c10d::HashStore>();
      return;
    }
    c10d::TCPStoreOptions options;
    options.port = uint16_t(env.master_port);
    options.isServer = !env.agent_store && env.rank == 0;
    options.numWorkers = size_t(env.world_size);
    // Rank 0's server returns once every rank has connected, or fails at the timeout.
    options.waitWorkers = !env.agent_store;
    options.timeout = timeout;
    store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
  }));
  store->setTimeout(timeout);
  return c10::intrusive_ptr<c10d::Store>(
      c10::make_intrusive<c10d::PrefixStore>(env.store_prefix, store));
}

#if CLGEN_HAVE_GLOO
// Gloo's network device: GLOO_SOCKET_IFNAME's interface when set (as in
// PyTorch), the loopback device for a world on 127.0.0.1, else the address
// this host's name resolves to.
std::shared_ptr<::gloo::transport::Device> gloo_device(const DistributedEnv& env) {
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
    std::string first(ifname);
    return c10d::ProcessGroupGloo::createDeviceForInterface(first.substr(0, first.find(',')));
  }
  if (is_loopback(env.master_addr) || env.world_size == 1)
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

Expected<std::unique_ptr<Collectives>> make_gloo_collectives(c10::intrusive_ptr<c10d::Store> store,
                                                             const DistributedEnv& env,
                                                             std::chrono::milliseconds timeout) {
  std::unique_ptr<Collectives> result;
  RETURN_IF_ERROR(c10d_call("gloo", fmt::format("process group of {} ranks", env.world_size), [&] {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices.push_back(gloo_device(env));
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world_size, options);
    result = std::make_unique<C10dCollectives<c10d::ProcessGroupGloo>>(store, group, env.rank,
                                                                       env.world_size, "gloo");
  }));
  return result;
}
#endif  // CLGEN_HAVE_GLOO
#endif  // CLGEN_HAVE_GLOO || CLGEN_HAVE_NCCL

}  // namespace

bool have_gloo() {
#if CLGEN_HAVE_GLOO
  return true;
#else
  return false;
#endif
}

bool have_nccl() {
#if CLGEN_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

Expected<std::unique_ptr<Collectives>> connect_collectives(const DistributedEnv& env,
                                                           const std::string& backend,
                                                           std::chrono::milliseconds timeout) {
  if (backend == "gloo" && !have_gloo())
    return unavailable("this build has no Gloo backend (LibTorch's c10d Gloo headers were not found "
                       "at configure time)");
  if (backend == "nccl" && !have_nccl())
    return unavailable("this build has no NCCL backend (LibTorch without CUDA, or nccl.h not found "
                       "at configure time)");
  if (backend != "gloo" && backend != "nccl")
    return invalid_argument("unknown distributed backend \"" + backend + "\"");
#if CLGEN_HAVE_GLOO || CLGEN_HAVE_NCCL
  quiet_c10d_logging();
  // A peer that dies closes its sockets; the next write to one must fail as
  // EPIPE (an error naming this rank) instead of killing the process with
  // SIGPIPE (exit 141), which the store and Gloo transports can raise.
  ::signal(SIGPIPE, SIG_IGN);
  ASSIGN_OR_RETURN(auto store, make_store(env, timeout));
#if CLGEN_HAVE_GLOO
  if (backend == "gloo") return make_gloo_collectives(store, env, timeout);
#endif
#if CLGEN_HAVE_NCCL
  if (backend == "nccl") return make_nccl_collectives(store, env, timeout);
#endif
#endif
  return internal_error("backend " + backend + " unreachable");
}

}  // namespace clgen::model
