// libgit2 plumbing shared by the corpus module: one-time initialisation and
// error messages. Private to corpus/.
#pragma once

#include <string>

namespace clgen::corpus {

// Initialises libgit2 once per process (thread-safe).
void ensure_libgit2();

// "what: <libgit2's last error message>".
std::string git_error_message(const std::string& what);

}  // namespace clgen::corpus
