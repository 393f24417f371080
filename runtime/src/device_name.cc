// Device specifications as TensorFlow's Python DeviceSpec reads them (the parser its
// import_graph_def applies to every node): the same parts, the same refusals.
#include "device_name.h"

#include <cctype>
#include <vector>

#include "device.h"

namespace opgen {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// What Python's int() takes, less whitespace and digit separators.
bool IsInteger(const std::string& s) {
  size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string Upper(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// TensorFlow's device types, and those of the devices plugins added here.
bool IsKnownDeviceType(const std::string& name) {
  const std::string type = Upper(name);
  for (const char* known : {"CPU", "GPU", "TPU", "EPU", "CUSTOM"})
    if (type == known) return true;
  for (const Device* d : AllDevices())
    if (d->type() == type) return true;
  return false;
}

}  // namespace

bool IsValidDeviceSpec(const std::string& spec, std::string* why) {
  bool has_type = false;
  for (const std::string& part : Split(spec, '/')) {
    const std::vector<std::string> f = Split(part, ':');
    std::string bad;
    if (f.size() == 2 && f[0] == "job") {
      continue;  // any name
    } else if (f.size() == 2 && (f[0] == "replica" || f[0] == "task")) {
      if (!IsInteger(f[1])) bad = f[0] + " '" + f[1] + "' is not a number";
    } else if ((f.size() == 1 || f.size() == 2) && IsKnownDeviceType(f[0])) {
      if (has_type) bad = "more than one device type";
      if (f.size() == 2 && f[1] != "*" && !IsInteger(f[1]))
        bad = "device index '" + f[1] + "' is not a number";
      has_type = true;
    } else if (f.size() == 3 && f[0] == "device") {
      if (has_type) bad = "more than one device type";
      if (f[2] != "*" && !IsInteger(f[2])) bad = "device index '" + f[2] + "' is not a number";
      has_type = true;
    } else if (!f[0].empty()) {
      bad = "unknown part '" + part + "' (not job:NAME, replica:N, task:N, device:TYPE:N or TYPE:N)";
    }
    if (!bad.empty()) {
      *why = bad;
      return false;
    }
  }
  return true;
}

}  // namespace opgen
