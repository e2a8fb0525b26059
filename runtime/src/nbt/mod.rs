//! Minecraft's NBT format: Java and Bedrock flavours, SNBT, region files.
