package vector
const preferAVX512 = true
