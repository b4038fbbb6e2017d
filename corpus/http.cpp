// libcurl-backed HTTP GET.
#include "corpus/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

namespace clgen::corpus {

namespace {

void ensure_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* s) const { curl_slist_free_all(s); }
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* resp = static_cast<HttpResponse*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) resp->headers.clear();  // a new response (after redirects)
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t");
    size_t e = value.find_last_not_of(" \t\r\n");
    value = b == std::string::npos ? "" : value.substr(b, e - b + 1);
    resp->headers[name] = value;
  }
  return size * n;
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::optional<std::time_t> parse_http_date(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::time_t t = curl_getdate(text.c_str(), nullptr);
  if (t == -1) return std::nullopt;
  return t;
}

std::string url_encode(const std::string& value) {
  std::string out;
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Expected<HttpResponse> http_get(const HttpRequest& request) {
  ensure_curl();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return internal_error("GET " + request.url + ": curl_easy_init failed");
  curl_slist* list = nullptr;
  for (const auto& h : request.headers) list = curl_slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, SlistDeleter> headers(list);
  HttpResponse resp;
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &resp);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, request.timeout_s);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // any encoding curl can decode
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    std::string msg = "GET " + request.url + ": " + (errbuf[0] ? errbuf : curl_easy_strerror(rc));
    return rc == CURLE_OPERATION_TIMEDOUT ? timeout_error(msg) : unavailable(msg);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp.status);
  return resp;
}

}  // namespace clgen::corpus
