#version 450
layout(binding = 0) uniform sampler2D gbuffer;
layout(location = 0) in vec4 tint;
layout(location = 0) out vec4 color;
void main()
{
	color = texture(gbuffer, gl_FragCoord.xy / 64.0) * tint;
}
