// TensorBoard event files: TFRecord framing (length, masked crc32c of the length, the
// record, masked crc32c of the record) around `Event` protos (TensorFlow's event.proto
// field numbers), in `<logdir>/events.out.tfevents.<seconds>.<host><suffix>`, the name
// TensorBoard scans a log directory for. The first record is the file_version event.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "crc32c.h"
#include "opgen/summary.h"
#include "core_types.h"
#include "tensorflow/c/c_api.h"
#include "wire_writer.h"

struct OPGEN_EventsWriter {
  std::string path;
  std::FILE* file = nullptr;
  std::mutex mu;  // one record at a time when several threads log

  ~OPGEN_EventsWriter() {
    if (file != nullptr) std::fclose(file);
  }
};

namespace {

// Event's fields.
constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kGraphDef = 4, kSummary = 5;
// Summary.value, and Summary.Value's tag and simple_value.
constexpr int kSummaryValue = 1, kValueTag = 1, kValueSimpleValue = 2;

double WallTime() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

void AppendFixed(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) *out += static_cast<char>((v >> (8 * i)) & 0xff);
}

bool WriteRecord(OPGEN_EventsWriter* w, std::string_view record, TF_Status* status) {
  std::string frame;
  AppendFixed(&frame, record.size(), 8);
  AppendFixed(&frame, opgen::crc32c::Mask(opgen::crc32c::Value(frame.data(), 8)), 4);
  frame += record;
  AppendFixed(&frame, opgen::crc32c::Mask(opgen::crc32c::Value(record.data(), record.size())), 4);
  std::lock_guard<std::mutex> lock(w->mu);
  if (std::fwrite(frame.data(), 1, frame.size(), w->file) != frame.size()) {
    opgen::SetStatus(status, TF_DATA_LOSS,
                     "writing an event to " + w->path + ": " + std::strerror(errno));
    return false;
  }
  opgen::ClearStatus(status);
  return true;
}

// An Event with its wall time and step, then `what` (already tagged) appended.
std::string EventHeader(int64_t step) {
  opgen::wire::Writer event;
  event.Fixed64Field(kWallTime, WallTime());
  event.OptionalVarint(kStep, static_cast<uint64_t>(step));
  return std::move(event.str());
}

std::string HostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

extern "C" {

OPGEN_EventsWriter* OPGEN_NewEventsWriter(const char* logdir, const char* filename_suffix,
                                          TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"logdir", logdir}})) return nullptr;
  try {
    std::error_code error;
    std::filesystem::create_directories(logdir, error);
    if (error) {
      opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                       std::string("cannot create the log directory ") + logdir + ": " +
                           error.message());
      return nullptr;
    }
    auto w = std::make_unique<OPGEN_EventsWriter>();
    const auto seconds = static_cast<long long>(WallTime());
    w->path = (std::filesystem::path(logdir) /
               ("events.out.tfevents." + std::to_string(seconds) + "." + HostName() +
                (filename_suffix != nullptr ? filename_suffix : "")))
                  .string();
    w->file = std::fopen(w->path.c_str(), "wb");
    if (w->file == nullptr) {
      opgen::SetStatus(status, TF_FAILED_PRECONDITION,
                       "cannot open " + w->path + ": " + std::strerror(errno));
      return nullptr;
    }
    opgen::wire::Writer version;
    version.Bytes(kFileVersion, "brain.Event:2");
    if (!WriteRecord(w.get(), EventHeader(0) + version.str(), status)) return nullptr;
    OPGEN_EventsWriterFlush(w.get(), status);
    if (TF_GetCode(status) != TF_OK) return nullptr;
    return w.release();
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, std::string("OPGEN_NewEventsWriter: ") + e.what());
    return nullptr;
  }
}

const char* OPGEN_EventsWriterFileName(const OPGEN_EventsWriter* writer) {
  return writer != nullptr ? writer->path.c_str() : "";
}

void OPGEN_EventsWriterAddScalar(OPGEN_EventsWriter* writer, const char* tag, int64_t step,
                                 float value, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"writer", writer}, {"tag", tag}})) return;
  try {
    opgen::wire::Writer v;
    v.Bytes(kValueTag, tag);
    v.Fixed32Field(kValueSimpleValue, value);
    opgen::wire::Writer summary;
    summary.Bytes(kSummaryValue, v.str());
    opgen::wire::Writer what;
    what.Bytes(kSummary, summary.str());
    WriteRecord(writer, EventHeader(step) + what.str(), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, std::string(__func__) + ": " + e.what());
  }
}

void OPGEN_EventsWriterAddGraph(OPGEN_EventsWriter* writer, TF_Graph* graph, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"writer", writer}, {"graph", graph}})) return;
  TF_Buffer* graph_def = TF_NewBuffer();
  try {
    TF_GraphToGraphDef(graph, graph_def, status);
    if (TF_GetCode(status) == TF_OK) {
      opgen::wire::Writer what;
      what.Bytes(kGraphDef, std::string_view(static_cast<const char*>(graph_def->data),
                                             graph_def->length));
      WriteRecord(writer, EventHeader(0) + what.str(), status);
    }
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, std::string(__func__) + ": " + e.what());
  }
  TF_DeleteBuffer(graph_def);
}

void OPGEN_EventsWriterAddEvent(OPGEN_EventsWriter* writer, const void* event, size_t length,
                                TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"writer", writer}})) return;
  if (event == nullptr && length != 0) {
    opgen::SetStatus(status, TF_INVALID_ARGUMENT, "OPGEN_EventsWriterAddEvent: event is NULL");
    return;
  }
  try {
    WriteRecord(writer, std::string_view(static_cast<const char*>(event), length), status);
  } catch (const std::exception& e) {
    opgen::SetStatus(status, TF_INTERNAL, std::string(__func__) + ": " + e.what());
  }
}

void OPGEN_EventsWriterFlush(OPGEN_EventsWriter* writer, TF_Status* status) {
  if (!opgen::CheckNotNull(status, __func__, {{"writer", writer}})) return;
  std::lock_guard<std::mutex> lock(writer->mu);
  if (std::fflush(writer->file) != 0) {
    opgen::SetStatus(status, TF_DATA_LOSS,
                     "flushing " + writer->path + ": " + std::strerror(errno));
    return;
  }
  opgen::ClearStatus(status);
}

void OPGEN_DeleteEventsWriter(OPGEN_EventsWriter* writer) { delete writer; }

}  // extern "C"
