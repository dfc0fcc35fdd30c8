#version 450
layout(location = 0) out vec4 color;
void main()
{
	color = vec4(0.2, 0.6, 0.9, 1.0);
}
