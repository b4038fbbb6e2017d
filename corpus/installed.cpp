// Installed-package sources: dpkg file lists and versions, and the default set.
#include "corpus/installed.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/files.h"
#include "support/log.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

std::vector<InstalledPackage> known_installed_packages(const std::string& workspace_root) {
  std::vector<InstalledPackage> out = {
      {"pocl-tests", "/usr/share/pocl-tests", {"*.cl"}, false, ""},
      {"ufo-filters-data", "/usr/share/ufo", {"*.cl"}, false, ""},
      {"libufo-data", "/usr/share/ufo", {"*.cl"}, false, ""},
      {"hashcat-data", "/usr/share/hashcat/OpenCL", {"*.cl"}, false, "", /*in_default=*/false},
      {"libbullet-dev", "/usr/include/bullet/Bullet3OpenCL", {"*/kernels/*.h"}, true, ""},
  };
  // darktable drags in a GUI stack; scripts/fetch-darktable-kernels.sh extracts its .deb instead.
  std::string extracted = workspace_root + "/packages/darktable";
  if (fs::is_directory("/usr/share/darktable/kernels"))
    out.push_back({"darktable", "/usr/share/darktable/kernels", {"*.cl"}, false, ""});
  else
    out.push_back({"darktable", extracted + "/usr/share/darktable/kernels", {"*.cl"}, false,
                   extracted + "/VERSION"});
  return out;
}

std::vector<InstalledPackage> default_installed_packages(const std::string& workspace_root) {
  std::vector<InstalledPackage> out;
  for (auto& p : known_installed_packages(workspace_root))
    if (p.in_default) out.push_back(std::move(p));
  return out;
}

Expected<std::vector<std::string>> installed_package_files(const std::string& package,
                                                           const std::string& root) {
  std::string list;
  for (const char* suffix : {"", ":amd64", ":all", ":arm64"}) {
    auto r = read_file("/var/lib/dpkg/info/" + package + suffix + ".list");
    if (r.ok()) {
      list = std::move(*r);
      break;
    }
  }
  if (list.empty()) return not_found("package " + package + " is not installed");
  std::vector<std::string> out;
  std::string prefix = root + "/";
  size_t pos = 0;
  while (pos < list.size()) {
    size_t end = list.find('\n', pos);
    if (end == std::string::npos) end = list.size();
    std::string line = list.substr(pos, end - pos);
    pos = end + 1;
    if (line.compare(0, prefix.size(), prefix) == 0 && fs::is_regular_file(line))
      out.push_back(line.substr(prefix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Expected<std::string> installed_package_version(const std::string& package) {
  std::ifstream in("/var/lib/dpkg/status");
  if (!in) return not_found("reading /var/lib/dpkg/status");
  std::string line;
  bool in_package = false;
  while (std::getline(in, line)) {
    if (line.rfind("Package: ", 0) == 0) in_package = line.substr(9) == package;
    else if (in_package && line.rfind("Version: ", 0) == 0) return line.substr(9);
  }
  return not_found("package " + package + " has no version in /var/lib/dpkg/status");
}

Expected<std::vector<InstalledImport>> import_installed(Database& db,
                                                       const std::vector<InstalledPackage>& packages,
                                                       const ImportOptions& base) {
  std::vector<InstalledImport> out;
  for (const auto& pkg : packages) {
    InstalledImport result;
    result.package = pkg.package;
    if (!fs::is_directory(pkg.root)) {
      result.note = pkg.root + " does not exist";
      if (!pkg.version_file.empty())
        result.note += "; scripts/fetch-darktable-kernels.sh WORKSPACE extracts it from Debian's archive";
      else
        result.note += "; install the package (scripts/install-deps.sh)";
      out.push_back(std::move(result));
      continue;
    }
    ImportOptions options = base;
    options.globs = pkg.globs;
    options.embedded_literals = pkg.embedded_literals;
    ASSIGN_OR_RETURN(auto tree, open_directory_tree(pkg.root));
    // The version: dpkg's for installed packages, else a VERSION file written
    // by the extraction script.
    std::string version;
    std::optional<std::vector<std::string>> only;
    auto files = installed_package_files(pkg.package, pkg.root);
    if (files.ok()) {
      std::vector<std::string> chosen;
      for (auto& f : *files)
        if (matches_globs(f, pkg.globs)) chosen.push_back(f);
      only = std::move(chosen);
      auto v = installed_package_version(pkg.package);
      if (v.ok()) version = *v;
    } else {
      auto v = pkg.version_file.empty() ? Expected<std::string>(not_found("no version file"))
                                        : read_file(pkg.version_file);
      if (v.ok()) {
        version = *v;
        while (!version.empty() && (version.back() == '\n' || version.back() == ' ')) version.pop_back();
      }
    }
    SourceInfo source;
    source.key = "package:" + pkg.package;
    source.kind = "package";
    source.name = pkg.package;
    auto summary = import_tree(db, *tree, source, version, options, only);
    if (!summary.ok()) return summary.status().with_context("importing package " + pkg.package);
    result.found = true;
    result.summary = std::move(*summary);
    out.push_back(std::move(result));
  }
  return out;
}

}  // namespace clgen::corpus
