// Self-checking testbench for fsm_onehot. Inputs change on the falling edge; outputs are
// checked 1 ns later against a model that keeps the position in the frame and the byte.
`timescale 1ns/1ps
module tb_fsm_onehot;
    reg        clk, rst, go;
    reg  [7:0] data;
    wire       tx, busy;
    integer    pos;          // 0 idle, 1 start bit, 2..9 data bits 0..7, 10 stop bit
    reg  [7:0] byte_q;
    integer    errors, n, seed, r, frames;
    reg        e_tx, e_busy;

    fsm_onehot dut (.clk(clk), .rst(rst), .go(go), .data(data), .tx(tx), .busy(busy));

    initial clk = 0;
    always #5 clk = ~clk;

    always @(posedge clk) begin
        if (rst) pos <= 0;
        else if (pos == 0) begin
            if (go) begin pos <= 1; byte_q <= data; frames <= frames + 1; end
        end else if (pos == 10) pos <= 0;
        else pos <= pos + 1;
    end

    task check;
        begin
            #1;
            e_busy = (pos != 0);
            e_tx = (pos == 0 || pos == 10) ? 1'b1 : (pos == 1) ? 1'b0 : byte_q[pos - 2];
            if (tx !== e_tx || busy !== e_busy) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH t=%0t rst=%b go=%b data=%h: got tx=%b busy=%b, expected tx=%b busy=%b (bit %0d of the frame)",
                             $time, rst, go, data, tx, busy, e_tx, e_busy, pos);
            end
        end
    endtask

    task step(input r_i, input g_i, input [7:0] d_i);
        begin
            @(negedge clk);
            rst = r_i; go = g_i; data = d_i;
            check;
        end
    endtask

    initial begin
        errors = 0; seed = 10; frames = 0;
        rst = 1; go = 0; data = 0;
        step(1, 1, 8'hFF);
        // directed: go held with changing data (back-to-back frames), walking ones and zeros
        for (n = 0; n < 80; n = n + 1) step(0, 1, n * 29);
        for (n = 0; n < 8; n = n + 1) begin
            step(0, 1, 8'd1 << n); step(0, 0, 8'h00); repeat (11) step(0, 0, 8'hFF);
            step(0, 1, ~(8'd1 << n)); repeat (11) step(0, 0, 8'h00);
        end
        // reset in a frame, with go asserted
        step(0, 1, 8'h96); step(0, 0, 0); step(0, 0, 0); step(1, 1, 8'h69); step(0, 1, 8'h3C);
        repeat (4) step(0, 0, 0); step(1, 0, 0); repeat (12) step(0, 0, 0);
        // random: reset 1/256, go density varies
        for (n = 0; n < 5000; n = n + 1) begin
            r = $random(seed);
            step(r[7:0] == 8'd0, (n % 1000 < 500) ? r[8] : (r[12:9] == 4'd0), $random(seed));
        end
        @(negedge clk);
        if (errors == 0 && frames > 300) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors + (frames > 300 ? 0 : 1));
        $finish;
    end
endmodule
