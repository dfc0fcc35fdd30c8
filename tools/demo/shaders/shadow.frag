#version 450
#include "common.glsl"

// Depth-only pass: the fragment shader exists only to carry the --load work. The discard is
// never taken (load_weight is 0.0) but keeps the loop from being optimised away.
void main()
{
    if (pc.load_weight * load_work(gl_FragCoord.xy) > 0.5)
        discard;
}
