// What clgen and clgen-worker load: the worker has OpenCL and never Clang,
// LLVM, LibTorch or OpenCV (its whole load-time closure, by ldd); clgen does
// not link OpenCL, and at run time never loads an OpenCL driver itself, only
// its workers do (the dynamic loader's own log, LD_DEBUG=files). Linking any
// of them again fails here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.h"
#include "tests/cli/run_command.h"

namespace clgen::driver {
namespace {

using clgen::testing::run_command;

// The shared libraries `binary` loads at start-up, by soname ("libfoo.so.1").
std::vector<std::string> loaded_libraries(const std::string& binary) {
  auto r = run_command({"/usr/bin/ldd", binary});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> libs;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.find("not found"), std::string::npos) << binary << ": " << line;
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name.rfind("lib", 0) == 0 || name.find("/lib") != std::string::npos)
      libs.push_back(name.substr(name.rfind('/') + 1));
  }
  EXPECT_FALSE(libs.empty()) << "ldd " << binary << " listed nothing:\n" << r.out;
  return libs;
}

bool loads(const std::vector<std::string>& libs, const std::string& prefix) {
  for (const auto& l : libs)
    if (l.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(WorkerBinary, LoadsOpenClButNeitherClangLlvmTorchNorOpenCv) {
  auto libs = loaded_libraries(CLGEN_WORKER_BINARY);
  EXPECT_TRUE(loads(libs, "libOpenCL.so"));
  for (const char* banned : {"libclang", "libLLVM", "libtorch", "libc10", "libopencv"})
    EXPECT_FALSE(loads(libs, banned)) << "clgen-worker loads " << banned;
}

// The DT_NEEDED entries of `binary` itself (readelf -d).
std::vector<std::string> needed_libraries(const std::string& binary) {
  auto r = run_command({"/usr/bin/readelf", "-d", binary});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> libs;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    size_t a = line.find('['), b = line.find(']');
    if (a != std::string::npos && b != std::string::npos) libs.push_back(line.substr(a + 1, b - a - 1));
  }
  EXPECT_FALSE(libs.empty()) << "readelf -d " << binary << " listed nothing:\n" << r.out;
  return libs;
}

TEST(ClgenBinary, DoesNotLinkOpenCl) {
  // Direct entries only: some builds of LibTorch (Debian's, through oneDNN)
  // themselves need libOpenCL.so.1, which never loads a driver unless called.
  auto libs = needed_libraries(CLGEN_BINARY);
  EXPECT_FALSE(loads(libs, "libOpenCL")) << "clgen links the OpenCL ICD loader";
#ifdef CLGEN_HAVE_CLANG
  // The same check sees clgen's own Clang, so it is looking at the right list.
  EXPECT_TRUE(loads(libs, "libclang-cpp"));
#endif
}

TEST(ClgenBinary, NeverLoadsAnOpenClDriverItselfOnlyItsWorkersDo) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("clgen-ld-debug-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The dynamic loader writes one log per process (ld.PID), naming the
  // program and every library it loads, dlopen()ed ICDs included.
  ::setenv("LD_DEBUG", "files", 1);
  ::setenv("LD_DEBUG_OUTPUT", (dir / "ld").c_str(), 1);
  auto devices = run_command({CLGEN_BINARY, "devices"});
  auto version = run_command({CLGEN_BINARY, "version", "--deps"});
  ::unsetenv("LD_DEBUG");
  ::unsetenv("LD_DEBUG_OUTPUT");
  EXPECT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_EQ(version.exit_code, 0) << version.err;
  int clgen_logs = 0, worker_logs_with_driver = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    auto log = read_file(entry.path().string(), 64u << 20);
    ASSERT_TRUE(log.ok()) << log.status().message();
    bool is_worker = log->find("transferring control: " CLGEN_WORKER_BINARY) != std::string::npos;
    bool is_clgen = !is_worker && log->find("transferring control: " CLGEN_BINARY) != std::string::npos;
    bool loads_driver = false;  // a library dlopen()ed by the ICD loader
    std::istringstream lines(*log);
    for (std::string line; std::getline(lines, line);) {
      size_t by = line.find("dynamically loaded by ");
      if (by != std::string::npos && line.find("libOpenCL.so", by) != std::string::npos)
        loads_driver = true;
    }
    if (is_clgen) {
      ++clgen_logs;
      EXPECT_FALSE(loads_driver) << "clgen itself loaded an OpenCL driver; " << entry.path();
    }
    if (is_worker && loads_driver) ++worker_logs_with_driver;
  }
  EXPECT_EQ(clgen_logs, 2);
  // The workers did load the drivers: the log shows ICD loads when they happen.
  EXPECT_GE(worker_logs_with_driver, 2);
  fs::remove_all(dir);
}

TEST(WorkerBinary, ListsDevicesAsJson) {
  auto r = run_command({CLGEN_WORKER_BINARY, "--list-devices"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["devices"].is_array());
  EXPECT_FALSE(j["icd_loader"].get<std::string>().empty());
}

TEST(WorkerBinary, StartedWithoutPipesExplainsItselfAndExitsWithTwo) {
  // run_command gives the child only stdin, stdout and stderr.
  auto r = run_command({CLGEN_WORKER_BINARY});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no request/answer pipes on fds 3 and 4"), std::string::npos) << r.err;
  EXPECT_EQ(run_command({CLGEN_WORKER_BINARY, "--bogus"}).exit_code, 2);
}

}  // namespace
}  // namespace clgen::driver
