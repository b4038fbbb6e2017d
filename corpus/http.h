// Minimal HTTP GET over libcurl with Status errors, for the GitHub client.
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::corpus {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"; may hold secrets, never logged
  long timeout_s = 60;               // whole transfer
  long connect_timeout_s = 15;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lowercased; last value wins
  std::string body;

  // The header's value or "" when absent; `name` is lowercase.
  std::string header(const std::string& name) const;
};

// Performs a GET. Transport failures come back as errors (kTimeout for
// timeouts, kUnavailable otherwise) naming the URL; any HTTP status is a
// successful response.
Expected<HttpResponse> http_get(const HttpRequest& request);

// The time of an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT" and the older
// forms RFC 9110 accepts) in seconds since the epoch, or nullopt.
std::optional<std::time_t> parse_http_date(const std::string& text);

// Percent-encodes a query-string value.
std::string url_encode(const std::string& value);

}  // namespace clgen::corpus
