// Parsing of kernel argument specifications into normalized prototypes.
#include "sampler/arg_spec.h"

#include <algorithm>
#include <fmt/format.h>

#include "support/opencl_types.h"

namespace clgen::sampler {

namespace {

// A type name of OpenCL C valid for a kernel parameter ("half" only behind a pointer).
bool is_known_type(std::string_view t) {
  if (cltypes::vector_element_type(t) || t == "half") return true;
  for (const cltypes::ScalarType& base : cltypes::kVectorElementTypes) {
    std::string_view b = base.name;
    if (t.size() > b.size() && t.substr(0, b.size()) == b && cltypes::vector_width(t.substr(b.size())) != 0)
      return true;
  }
  return false;
}

// Splits an item into words, with each '*' a word of its own.
std::vector<std::string> words_of(std::string_view item) {
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) words.push_back(cur);
    cur.clear();
  };
  for (char c : item) {
    if (c == ' ' || c == '\t' || c == '\n') {
      flush();
    } else if (c == '*') {
      flush();
      words.push_back("*");
    } else {
      cur += c;
    }
  }
  flush();
  return words;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool address_space_of(const std::string& w, AddressSpace* out) {
  std::string_view s(w);
  if (s.substr(0, 2) == "__") s.remove_prefix(2);
  if (s == "global") *out = AddressSpace::kGlobal;
  else if (s == "local") *out = AddressSpace::kLocal;
  else if (s == "constant") *out = AddressSpace::kConstant;
  else if (s == "private") *out = AddressSpace::kPrivate;
  else return false;
  return true;
}

const char* address_space_text(AddressSpace a) {
  switch (a) {
    case AddressSpace::kGlobal: return "__global";
    case AddressSpace::kLocal: return "__local";
    case AddressSpace::kConstant: return "__constant";
    case AddressSpace::kPrivate: return "__private";
    case AddressSpace::kNone: break;
  }
  return "";
}

Expected<KernelArg> parse_item(std::string_view item) {
  KernelArg arg;
  std::vector<std::string> words = words_of(item);
  int stars = 0;
  bool saw_unsigned = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    AddressSpace as;
    if (w == "*") {
      ++stars;
    } else if (stars > 0) {
      // Only `restrict` may follow the '*'.
      if (w == "restrict" || w == "__restrict") {
        arg.is_restrict = true;
      } else if (w == "const") {
        return invalid_argument("a const pointer ('* const') is not a kernel parameter form we write");
      } else {
        return invalid_argument(fmt::format("unexpected '{}' after '*'", w));
      }
    } else if (address_space_of(w, &as)) {
      if (arg.address_space != AddressSpace::kNone)
        return invalid_argument(fmt::format("more than one address space ('{}')", w));
      arg.address_space = as;
    } else if (w == "const") {
      arg.is_const = true;
    } else if (w == "volatile") {
      arg.is_volatile = true;
    } else if (w == "restrict" || w == "__restrict") {
      return invalid_argument("restrict needs a pointer ('float* restrict')");
    } else if (w == "unsigned") {
      if (saw_unsigned || !arg.type.empty()) return invalid_argument("misplaced 'unsigned'");
      saw_unsigned = true;
    } else {
      if (!arg.type.empty())
        return invalid_argument(fmt::format("two type names ('{}' and '{}')", arg.type, w));
      if (!is_known_type(w)) return invalid_argument(fmt::format("unknown type '{}'", w));
      arg.type = w;
    }
  }
  if (arg.type.empty()) {
    if (!saw_unsigned) return invalid_argument("no type name");
    arg.type = "int";  // `unsigned` alone means unsigned int
  }
  if (saw_unsigned) {
    // `unsigned` applies to the signed integers: char, short, int, long.
    const cltypes::ScalarType* t = cltypes::vector_element_type(arg.type);
    if (!t || t->kind != cltypes::ScalarKind::kSigned)
      return invalid_argument(fmt::format("'unsigned {}' is not a type", arg.type));
    arg.type = "unsigned " + arg.type;
  }
  if (stars > 1) return invalid_argument("pointers to pointers cannot be kernel parameters");
  arg.pointer = stars == 1;
  if (!arg.pointer) {
    if (arg.address_space != AddressSpace::kNone && arg.address_space != AddressSpace::kPrivate)
      return invalid_argument(fmt::format("address space '{}' needs a pointer",
                                          address_space_text(arg.address_space)));
    if (arg.type == "half") return invalid_argument("'half' is only allowed behind a pointer");
    arg.address_space = AddressSpace::kNone;  // __private is the default for values
    arg.is_const = true;                      // the corpus writes scalars as `const T`
  } else if (arg.address_space == AddressSpace::kNone) {
    arg.address_space = AddressSpace::kGlobal;
  } else if (arg.address_space == AddressSpace::kPrivate) {
    return invalid_argument("kernel pointer parameters cannot point to __private memory");
  }
  return arg;
}

}  // namespace

Expected<std::vector<KernelArg>> parse_arg_spec(std::string_view spec) {
  if (trim(spec).empty()) return invalid_argument("empty argument specification");
  std::vector<KernelArg> args;
  size_t start = 0;
  for (size_t n = 1;; ++n) {
    size_t comma = spec.find(',', start);
    std::string_view item =
        trim(spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start));
    if (item.empty()) {
      return invalid_argument(fmt::format("argument {}: empty item in '{}'", n, spec));
    }
    Expected<KernelArg> arg = parse_item(item);
    if (!arg.ok()) {
      return arg.status().with_context(fmt::format("argument {} '{}'", n, item));
    }
    args.push_back(std::move(*arg));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return args;
}

std::string parameter_name(size_t index) {
  // Bijective base 26: a..z, aa..az, ba.., as the rewriter names them.
  std::string name;
  size_t n = index + 1;
  while (n > 0) {
    --n;
    name.insert(name.begin(), static_cast<char>('a' + n % 26));
    n /= 26;
  }
  return name;
}

std::string kernel_prototype(const std::vector<KernelArg>& args, const std::string& kernel_name,
                             const std::vector<std::string>& param_names) {
  std::string out = "__kernel void " + kernel_name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    if (i) out += ", ";
    if (a.address_space != AddressSpace::kNone) {
      out += address_space_text(a.address_space);
      out += ' ';
    }
    if (a.is_const) out += "const ";
    if (a.is_volatile) out += "volatile ";
    out += a.type;
    if (a.pointer) out += a.is_restrict ? "* restrict " : "* ";
    else out += ' ';
    out += param_names.at(i);
  }
  out += ") {";
  return out;
}

std::string kernel_prototype(const std::vector<KernelArg>& args) {
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) names.push_back(parameter_name(i));
  return kernel_prototype(args, "A", names);
}

Expected<std::string> seed_text(std::string_view spec) {
  if (trim(spec).empty()) return std::string("__kernel void A(");
  ASSIGN_OR_RETURN(auto args, parse_arg_spec(spec));
  return kernel_prototype(args);
}

}  // namespace clgen::sampler
