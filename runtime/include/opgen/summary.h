/* TensorBoard event files from any language: opgen's addition to TensorFlow's C API
 * (TensorFlow writes summaries through ops and kernels its C API does not expose).
 *
 *   TF_Status* s = TF_NewStatus();
 *   OPGEN_EventsWriter* w = OPGEN_NewEventsWriter("logs/run1", "", s);
 *   OPGEN_EventsWriterAddGraph(w, graph, s);              // the Graphs tab
 *   for (int step = 0; step < 100; ++step)
 *     OPGEN_EventsWriterAddScalar(w, "loss", step, loss, s); // the Scalars tab
 *   OPGEN_DeleteEventsWriter(w);                           // flushes and closes
 *
 * `tensorboard --logdir logs` shows the run. The file is
 * `<logdir>/events.out.tfevents.<unix seconds>.<host name><suffix>`: TFRecord framing
 * (masked CRC-32C of each length and record) around TensorFlow `Event` protos, the first
 * one the file version "brain.Event:2". */
#ifndef OPGEN_SUMMARY_H_
#define OPGEN_SUMMARY_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OPGEN_EventsWriter OPGEN_EventsWriter;

/* Creates `logdir` (and its parents) if needed, opens a new event file in it and writes
 * the file-version event. `filename_suffix` may be NULL. NULL on error, with `status`. */
TF_CAPI_EXPORT extern OPGEN_EventsWriter* OPGEN_NewEventsWriter(const char* logdir,
                                                                const char* filename_suffix,
                                                                TF_Status* status);
/* The file's path; valid while the writer lives. */
TF_CAPI_EXPORT extern const char* OPGEN_EventsWriterFileName(const OPGEN_EventsWriter* writer);
/* A scalar summary (`Summary.Value.simple_value`) under `tag` at `step`. */
TF_CAPI_EXPORT extern void OPGEN_EventsWriterAddScalar(OPGEN_EventsWriter* writer,
                                                       const char* tag, int64_t step,
                                                       float value, TF_Status* status);
/* The graph as a GraphDef (what TF_GraphToGraphDef gives), for TensorBoard's graph view. */
TF_CAPI_EXPORT extern void OPGEN_EventsWriterAddGraph(OPGEN_EventsWriter* writer,
                                                      TF_Graph* graph, TF_Status* status);
/* Any serialized `Event` proto, framed as the others (histograms, images, ...). */
TF_CAPI_EXPORT extern void OPGEN_EventsWriterAddEvent(OPGEN_EventsWriter* writer,
                                                      const void* event, size_t length,
                                                      TF_Status* status);
/* Writes what is buffered to the file, so a running TensorBoard sees it. */
TF_CAPI_EXPORT extern void OPGEN_EventsWriterFlush(OPGEN_EventsWriter* writer,
                                                   TF_Status* status);
/* Flushes and closes; NULL is ignored. */
TF_CAPI_EXPORT extern void OPGEN_DeleteEventsWriter(OPGEN_EventsWriter* writer);

#ifdef __cplusplus
}
#endif

#endif /* OPGEN_SUMMARY_H_ */
