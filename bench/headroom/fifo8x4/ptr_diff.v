// kind: width
// change: pointers one bit wider (a wrap bit) and the fill level computed as their difference, instead of a separate count register with an up/down adder; a little smaller but slower through the subtractor (0.86x).
module fifo8x4 (
    input            clk,
    input            rst,
    input            wr_en,
    input      [7:0] wr_data,
    input            rd_en,
    output reg [7:0] rd_data,
    output           full,
    output           empty,
    output     [2:0] count
);
    reg [7:0] mem [0:3];
    reg [2:0] wp, rp;          // pointers with a wrap bit: their difference is the fill level
    assign count = wp - rp;
    assign full  = (wp[1:0] == rp[1:0]) & (wp[2] != rp[2]);
    assign empty = (wp == rp);
    wire do_wr = wr_en && !full;
    wire do_rd = rd_en && !empty;
    always @(posedge clk) begin
        if (rst) begin
            wp <= 3'd0; rp <= 3'd0; rd_data <= 8'd0;
        end else begin
            if (do_wr) begin
                mem[wp[1:0]] <= wr_data;
                wp <= wp + 3'd1;
            end
            if (do_rd) begin
                rd_data <= mem[rp[1:0]];
                rp <= rp + 3'd1;
            end
        end
    end
endmodule
