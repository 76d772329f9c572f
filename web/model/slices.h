#pragma once
// Long searches (the planner's, the serving plan's) run a few slices per frame so the page keeps
// drawing. A frame runs slices until it has done its share of work, or its time is up, whichever
// comes first: the work bound makes the spread over frames the same on every machine (a fast one
// does not swallow a long search in one frame), the time bound keeps a slow machine live. What
// each search did is published (SliceStats), so tests count work, not frames drawn.

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace gpuplan::web {

// The planner's share of one frame: at most this many configurations evaluated before the page
// draws (or kSliceTimePerFrame, whichever comes first). Natively a configuration takes about
// 1 us (`gpuplan plan` of the firstuse browser test's query: 114,660 of them in under 0.2 s of
// CPU, catalog loading included) and WebAssembly is slower, so on a fast machine a frame spends
// about 10 ms on the search, a long search spreads over frames, and a short one ends in its first.
inline constexpr int64_t kPlanCandidatesPerFrame = 10000;
// A frame's time for slices, leaving the rest of a 60 Hz frame to drawing.
inline constexpr std::chrono::milliseconds kSliceTimePerFrame{12};

// How one search was spread over frames.
struct SliceStats {
  int64_t slices = 0;          // slices run
  int64_t frames = 0;          // frames that ran at least one slice
  int64_t work = 0;            // work done, in the search's own unit (see the caller)
  int64_t largest_frame = 0;   // the most work one frame did
  int64_t work_per_frame = 0;  // the budget the frames ran under
};

// Runs `step()` (one slice; false when none was left) in this frame until `work()` has grown by
// `work_per_frame`, `time_per_frame` has passed or `done()`; records the frame in `stats`.
template <class Step, class Work, class Done>
void run_slices_for_a_frame(Step step, Work work, Done done, int64_t work_per_frame,
                            std::chrono::milliseconds time_per_frame, SliceStats& stats) {
  if (done()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t work0 = work();
  stats.work_per_frame = work_per_frame;
  ++stats.frames;
  while (!done() && work() - work0 < work_per_frame &&
         std::chrono::steady_clock::now() - t0 < time_per_frame) {
    if (!step()) break;
    ++stats.slices;
  }
  stats.work = work();
  stats.largest_frame = std::max(stats.largest_frame, stats.work - work0);
}

}  // namespace gpuplan::web
