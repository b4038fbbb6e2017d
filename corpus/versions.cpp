// Asks the loaded libgit2, libcurl and libarchive for their versions.
#include "corpus/versions.h"

#include <archive.h>
#include <curl/curl.h>
#include <git2.h>

#include <string>

namespace clgen::corpus {

std::vector<DependencyVersion> dependency_versions() {
  int major = 0, minor = 0, rev = 0;
  git_libgit2_version(&major, &minor, &rev);
  const curl_version_info_data* curl = curl_version_info(CURLVERSION_NOW);
  std::string curl_version = curl->version;
  if (curl->ssl_version) curl_version += std::string(" (") + curl->ssl_version + ")";
  int archive = archive_version_number();  // e.g. 3006002
  std::string archive_version = std::to_string(archive / 1000000) + "." + std::to_string(archive / 1000 % 1000) +
                                "." + std::to_string(archive % 1000);
  return {
      {"libgit2", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(rev),
       "runtime"},
      {"libcurl", curl_version, "runtime"},
      {"libarchive", archive_version, "runtime"},
  };
}

}  // namespace clgen::corpus
