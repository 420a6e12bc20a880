// kind: decode
// change: closed form of the four defined words on addr[1:0] (copies of addr bits, one inverter, constants); no gain: synthesis already treats the uninitialized words as undefined and reaches the same netlist, the area is output buffers and tie cells.
module ROM (
    input wire [7:0] addr,
    output reg [15:0] dout
);
    // words A0A0, B1B1, C2C2, D3D3: each byte = {1, a1, ~a1, a0, 0, 0, a1, a0} with nibble 4'hA + a and 4'h0 + a
    always @(*) begin
        dout = {1'b1, addr[1], ~addr[1], addr[0], 2'b00, addr[1], addr[0],
                1'b1, addr[1], ~addr[1], addr[0], 2'b00, addr[1], addr[0]};
    end
endmodule
