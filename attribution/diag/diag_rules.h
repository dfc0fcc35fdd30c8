#pragma once
/* The diagnostics rules, one row each: what a rule is called, what it is about, how much fixing
 * it gains and what a finding of it says (docs/diagnostics.md, "The IDs").
 *
 * X(NAME, id, kind, api, severity, docs, severity_reason, message, suggestion)
 *   NAME      the enum's name, PP_DIAG_<NAME> (attr_diag.h)
 *   kind      BARRIER: judged per barrier; its message and suggestion are made by
 *             diag_findings.c from what the barrier names (masks, resources), NULL here.
 *             BLOCKING: a call that waits for the GPU or makes the driver stall or copy.
 *             PASS: a pass's attachment traffic on tile-based GPUs.
 *   api       VULKAN or GLES: the front end whose detector reports it
 *   severity  WARNING or INFO: the rule's; diag_severity.c may judge a barrier's finding lower
 *             by what its narrower form gains
 *   docs      its section's anchor in docs/diagnostics.md (test_diag_rule_table checks it is there)
 *   message, suggestion  a BLOCKING or PASS finding's texts (the detector appends its detail)
 *
 * A new rule is a row here, a detector in its front end (intercept/vulkan or intercept/gles,
 * reporting through pp_diag_waits_blocking_report or the barrier judgement) and its section in the
 * docs. */
#define PP_DIAG_RULES(X) \
	X(FULL_DRAIN, "PASSPROBE-Barrier-FullPipelineDrain", BARRIER, VULKAN, WARNING, "passprobe-barrier-fullpipelinedrain", \
	  "every later stage waits for every earlier one: on a tile-based GPU both queues run dry", \
	  NULL, \
	  NULL) \
	X(DST_TOO_EARLY, "PASSPROBE-Barrier-DstStageTooEarly", BARRIER, VULKAN, WARNING, "passprobe-barrier-dststagetooearly", \
	  "later work in the stages it blocks for nothing could overlap the work it waits for", \
	  NULL, \
	  NULL) \
	X(SRC_TOO_LATE, "PASSPROBE-Barrier-SrcStageTooLate", BARRIER, VULKAN, WARNING, "passprobe-barrier-srcstagetoolate", \
	  "later work waits for earlier work it does not need", \
	  NULL, \
	  NULL) \
	X(READ_TO_READ, "PASSPROBE-Barrier-ReadToRead", BARRIER, VULKAN, WARNING, "passprobe-barrier-readtoread", \
	  "removing it lets later work run while the earlier reads finish", \
	  NULL, \
	  NULL) \
	X(DUPLICATE, "PASSPROBE-Barrier-Duplicate", BARRIER, VULKAN, INFO, "passprobe-barrier-duplicate", \
	  "with nothing recorded between, the second barrier waits for nothing the first did not: " \
	  "only the driver's work for the call goes away", \
	  NULL, \
	  NULL) \
	X(CHAIN, "PASSPROBE-Barrier-FragmentComputeVertexChain", BARRIER, VULKAN, WARNING, "passprobe-barrier-fragmentcomputevertexchain", \
	  "a fragment -> compute -> vertex chain keeps the next frame's non-fragment work from " \
	  "overlapping this frame's fragment work", \
	  NULL, \
	  NULL) \
	X(SET_EVENT_WAIT, "PASSPROBE-Barrier-SetEventThenWait", BARRIER, VULKAN, INFO, "passprobe-barrier-seteventthenwait", \
	  "a pipeline barrier orders the same work: only the event's set and wait go away", \
	  NULL, \
	  NULL) \
	X(QUERY_WAIT, "PASSPROBE-Blocking-QueryWait", BLOCKING, VULKAN, WARNING, "passprobe-blocking-querywait", \
	  "the thread that does the frame's work stalls until the GPU is done, and the GPU idles " \
	  "after", \
	  "vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT waits for queries whose submission " \
	  "has not finished: the CPU stalls until the GPU is done, and the GPU then idles until the " \
	  "next submission (the pipeline between CPU and GPU drains, like glFinish).", \
	  "Read query results two or more frames later without WAIT_BIT (WITH_AVAILABILITY_BIT, " \
	  "retry next frame), or after the fence of their submission.") \
	X(QUERY_WAIT_UNSUBMITTED, "PASSPROBE-Blocking-QueryWaitUnsubmitted", BLOCKING, VULKAN, WARNING, "passprobe-blocking-querywaitunsubmitted", \
	  "the wait can only end if a submission comes: a deadlock otherwise", \
	  "vkGetQueryPoolResults with VK_QUERY_RESULT_WAIT_BIT on queries that no submitted command " \
	  "buffer writes: the wait cannot finish until such a submission happens (a deadlock if " \
	  "none comes).", \
	  "Submit the command buffer that writes the queries before waiting on them, or read " \
	  "without WAIT_BIT.") \
	X(FENCE_WAIT, "PASSPROBE-Blocking-FenceWaitSameFrame", BLOCKING, VULKAN, WARNING, "passprobe-blocking-fencewaitsameframe", \
	  "the thread that does the frame's work cannot prepare the next frame while the GPU works " \
	  "on this one", \
	  "vkWaitForFences on the fence of a submission of the latest frame: the CPU cannot prepare " \
	  "the next frame while the GPU works on this one, and the GPU idles while the CPU prepares " \
	  "it.", \
	  "Keep two or more frames in flight: one fence per frame, wait on the fence of frame N-2 " \
	  "before reusing its resources.") \
	X(QUEUE_WAIT_IDLE, "PASSPROBE-Blocking-QueueWaitIdle", BLOCKING, VULKAN, WARNING, "passprobe-blocking-queuewaitidle-passprobe-blocking-devicewaitidle", \
	  "the queue drains every frame on the thread that does the frame's work", \
	  "vkQueueWaitIdle inside the frame loop (it recurs in later frames): it drains the queue " \
	  "every time and serializes CPU and GPU.", \
	  "Synchronize with per-frame fences (and semaphores between queues); keep idle waits for " \
	  "start-up, resize and shutdown.") \
	X(DEVICE_WAIT_IDLE, "PASSPROBE-Blocking-DeviceWaitIdle", BLOCKING, VULKAN, WARNING, "passprobe-blocking-queuewaitidle-passprobe-blocking-devicewaitidle", \
	  "every queue drains every frame on the thread that does the frame's work", \
	  "vkDeviceWaitIdle inside the frame loop (it recurs in later frames): it drains every " \
	  "queue every time and serializes CPU and GPU.", \
	  "Synchronize with per-frame fences (and semaphores between queues); keep idle waits for " \
	  "start-up, resize and shutdown.") \
	X(POLLING, "PASSPROBE-Blocking-PollingLoop", BLOCKING, VULKAN, WARNING, "passprobe-blocking-pollingloop", \
	  "the thread that does the frame's work burns its time polling", \
	  "a tight polling loop: the same object was polled repeatedly within one frame while the " \
	  "GPU had not finished, burning a CPU core.", \
	  "Wait once (vkWaitForFences with a timeout) where the result is needed, or do useful work " \
	  "and read results of older frames.") \
	X(SEMAPHORE_WAIT, "PASSPROBE-Blocking-SemaphoreWaitSameFrame", BLOCKING, VULKAN, WARNING, "passprobe-blocking-semaphorewaitsameframe", \
	  "the thread that does the frame's work cannot prepare the next frame while the GPU works " \
	  "on this one", \
	  "vkWaitSemaphores waits for a timeline semaphore value signalled by a submission of the " \
	  "latest frame: the CPU cannot prepare the next frame while the GPU works on this one, and " \
	  "the GPU idles while the CPU prepares it.", \
	  "Keep two or more frames in flight: wait on the host for the value frame N-2 signalled " \
	  "before reusing its resources, and order GPU work with semaphore waits in the next " \
	  "submission instead.") \
	X(SUBPASS_NOT_BY_REGION, "PASSPROBE-Barrier-SubpassDependencyNotByRegion", BARRIER, VULKAN, WARNING, "passprobe-barrier-subpassdependencynotbyregion", \
	  "every tile of the source subpass is written to memory and read back instead of staying " \
	  "on-chip", \
	  NULL, \
	  NULL) \
	X(UNUSED, "PASSPROBE-Barrier-Unused", BARRIER, VULKAN, WARNING, "passprobe-barrier-unused", \
	  "removing it drops a wait and, after a write, a cache flush", \
	  NULL, \
	  NULL) \
	X(MERGEABLE, "PASSPROBE-Barrier-Mergeable", BARRIER, VULKAN, INFO, "passprobe-barrier-mergeable", \
	  "the merged call orders the same work: one synchronization point of the driver instead of " \
	  "two, no more overlap", \
	  NULL, \
	  NULL) \
	X(READBACK_DRAIN, "PASSPROBE-Blocking-SynchronousReadback", BLOCKING, GLES, WARNING, "passprobe-blocking-synchronousreadback", \
	  "the pipeline drains every frame on the thread that does the frame's work", \
	  "a read of rendered pixels into CPU memory right after the work that renders them: the " \
	  "call returns only once the GPU has finished that work (a pipeline drain), and the GPU " \
	  "then idles until the CPU submits again.", \
	  "Read into a GPU buffer (OpenGL ES: glReadPixels into a GL_PIXEL_PACK_BUFFER, then a " \
	  "fence) and map it two or more frames later, once its fence has signalled (a wait with " \
	  "timeout 0).") \
	X(FINISH, "PASSPROBE-Blocking-FinishInFrameLoop", BLOCKING, GLES, WARNING, "passprobe-blocking-finishinframeloop", \
	  "the pipeline drains every frame on the thread that does the frame's work", \
	  "a wait for all submitted GPU work to complete inside the frame loop (it recurs in later " \
	  "frames): it drains the pipeline every time and serializes CPU and GPU.", \
	  "Remove it from the frame loop; where the CPU must know the GPU is done with a resource, " \
	  "set a fence after its last use and wait for the fence of frame N-2.") \
	X(QUERY_RESULT_WAIT, "PASSPROBE-Blocking-QueryResultNotAvailable", BLOCKING, GLES, WARNING, "passprobe-blocking-queryresultnotavailable", \
	  "the thread that does the frame's work stalls until the GPU is done", \
	  "a blocking read of a query result that was not available yet: the CPU stalls until the " \
	  "GPU has finished the work the query measures, and the GPU then idles until the next " \
	  "submission.", \
	  "Read query results two or more frames later, and only once their availability says they " \
	  "are there (OpenGL ES: GL_QUERY_RESULT_AVAILABLE); keep a ring of queries.") \
	X(SYNC_WAIT, "PASSPROBE-Blocking-SyncWaitSameFrame", BLOCKING, GLES, WARNING, "passprobe-blocking-syncwaitsameframe", \
	  "the thread that does the frame's work cannot prepare the next frame while the GPU works " \
	  "on this one", \
	  "a host wait with a timeout on a fence set in the latest frame: the CPU cannot prepare " \
	  "the next frame while the GPU works on this one, and the GPU idles while the CPU prepares " \
	  "it.", \
	  "Keep two or more frames in flight: poll (timeout 0) or wait for the fence of frame N-2, " \
	  "not for the one just set.") \
	X(MAP_IN_USE, "PASSPROBE-Blocking-MapBufferInUse", BLOCKING, GLES, WARNING, "passprobe-blocking-mapbufferinuse", \
	  "the driver waits for the GPU, or copies the buffer, on the thread that does the frame's " \
	  "work", \
	  "a synchronized map of a buffer that draws of the current or the previous frame read: the " \
	  "driver must wait until the GPU has finished those draws before it can return the " \
	  "pointer.", \
	  "Map without synchronization where the application knows the range is not in use (OpenGL " \
	  "ES: GL_MAP_UNSYNCHRONIZED_BIT with a ring of ranges), or orphan it " \
	  "(GL_MAP_INVALIDATE_BUFFER_BIT / _RANGE_BIT) when all of it is rewritten.") \
	X(TEXTURE_UPDATE_IN_USE, "PASSPROBE-Blocking-TextureUpdateAfterUse", BLOCKING, GLES, WARNING, "passprobe-blocking-textureupdateafteruse", \
	  "the driver waits for the GPU, or copies the image, on the thread that does the frame's " \
	  "work", \
	  "an update of an image's texels after draws of the same frame sampled it: the driver must " \
	  "either wait for those draws or copy the image (renaming it) so that they see the old " \
	  "texels.", \
	  "Update the image before the frame's first use of it, or cycle between several images " \
	  "(one per frame in flight).") \
	X(STATIC_BUFFER_UPDATE, "PASSPROBE-Blocking-StaticBufferUpdate", BLOCKING, GLES, WARNING, "passprobe-blocking-staticbufferupdate", \
	  "the driver may stall or copy the buffer at every update", \
	  "repeated updates of a buffer created with a static usage hint: the driver placed it in " \
	  "memory meant to be written once, so each update may stall on draws using it or copy it.", \
	  "Create buffers updated every frame with a dynamic or stream usage hint (OpenGL ES: " \
	  "GL_DYNAMIC_DRAW / GL_STREAM_DRAW), or use a ring of ranges mapped without " \
	  "synchronization.") \
	X(PASS_UNNEEDED_LOAD, "PASSPROBE-Pass-UnneededLoad", PASS, GLES, WARNING, "passprobe-pass-unneededload-passprobe-pass-unneededstore", \
	  "every tile reads the attachment from memory for nothing (bandwidth)", \
	  "a pass loads an attachment's old contents although they are undefined or entirely " \
	  "overwritten: on a tile-based GPU every tile is read from memory before rendering " \
	  "(bandwidth for nothing).", \
	  "Begin the pass with a clear of the attachment (OpenGL ES: glClear of its buffers right " \
	  "after binding the framebuffer), or invalidate it before rendering when it is entirely " \
	  "overwritten.") \
	X(PASS_UNNEEDED_STORE, "PASSPROBE-Pass-UnneededStore", PASS, GLES, WARNING, "passprobe-pass-unneededload-passprobe-pass-unneededstore", \
	  "every tile writes the attachment to memory for nothing (bandwidth)", \
	  "a pass stores an attachment that nothing reads afterwards: on a tile-based GPU every " \
	  "tile is written to memory after rendering (bandwidth for nothing).", \
	  "Invalidate an attachment nothing reads at the end of the pass that writes it (OpenGL ES: " \
	  "glInvalidateFramebuffer after the pass's last draw); a window surface's colour: " \
	  "EGL_SWAP_BEHAVIOR EGL_BUFFER_DESTROYED.")
