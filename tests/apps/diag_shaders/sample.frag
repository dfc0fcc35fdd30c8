#version 450
// The G-buffer read of the second pass: only the fragment shader samples it.
layout(binding = 0) uniform sampler2D gbuffer;
layout(location = 0) out vec4 color;
void main()
{
	color = texture(gbuffer, gl_FragCoord.xy / 64.0);
}
