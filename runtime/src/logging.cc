// $OPGEN_LOG_LEVEL and device-placement logging; the C entry points are in
// opgen/c_api_ext.h.
#include "logging.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "opgen/c_api_ext.h"

namespace opgen {
namespace {

constexpr int kMaxLevel = 3;  // nothing is printed

// "0".."3" as TF_CPP_MIN_LOG_LEVEL, or a severity's name: the least severity printed.
int ParseLevel(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  std::string s;
  for (const char* p = text; *p; ++p) s += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
  if (s == "info" || s == "debug") return 0;
  if (s == "warning" || s == "warn") return 1;
  if (s == "error") return 2;
  if (s == "none" || s == "off" || s == "fatal") return kMaxLevel;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || v < 0 || v > kMaxLevel) {
    // Said once: a typo must not silently change what is logged.
    std::fprintf(stderr, "opgen: OPGEN_LOG_LEVEL=%s is not 0-3 or info, warning, error, "
                         "none; using 0 (everything)\n", text);
    return 0;
  }
  return static_cast<int>(v);
}

std::atomic<int>& MinLevel() {
  static std::atomic<int> level{ParseLevel(std::getenv("OPGEN_LOG_LEVEL"))};
  return level;
}

std::atomic<bool> log_device_placement{false};

}  // namespace

bool LogEnabled(LogSeverity severity) {
  return static_cast<int>(severity) >= MinLevel().load(std::memory_order_relaxed);
}

void Log(LogSeverity severity, const std::string& message) {
  if (!LogEnabled(severity)) return;
  std::string line = message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines of threads do not mix
}

bool LogDevicePlacement() {
  return log_device_placement.load(std::memory_order_relaxed) && LogEnabled(LogSeverity::kInfo);
}

}  // namespace opgen

extern "C" {

void OPGEN_SetLogDevicePlacement(int enable) {
  opgen::log_device_placement.store(enable != 0, std::memory_order_relaxed);
}

int OPGEN_GetLogDevicePlacement(void) {
  return opgen::log_device_placement.load(std::memory_order_relaxed) ? 1 : 0;
}

int OPGEN_SetLogLevel(int level) {
  if (level < 0 || level > opgen::kMaxLevel) return -1;
  opgen::MinLevel().store(level, std::memory_order_relaxed);
  return 0;
}

int OPGEN_GetLogLevel(void) { return opgen::MinLevel().load(std::memory_order_relaxed); }

}  // extern "C"
